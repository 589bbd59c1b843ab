// The arithmetic of RFC 9162 §2.1.3.2 inclusion verification without the hashing: which side each
// sibling of an inclusion path joins on. It is shared by merkle.ts (node:crypto, for the daemon and
// gatewayctl) and the web console (Web Crypto, asynchronous), so both walk a path the same way.
// Indexes are JavaScript numbers, exact up to Number.MAX_SAFE_INTEGER; no bitwise operators.

/**
 * For each of `pathLength` siblings from the leaf up, whether it is the LEFT input of the node hash
 * (nodeHash(sibling, running)) rather than the right; null when no path of that length can lead
 * from leaf `index` of a tree of `size` leaves to its root.
 */
export function inclusionSides(index: number, size: number, pathLength: number): boolean[] | null {
  if (!isCount(index) || !isCount(size) || !isCount(pathLength) || index >= size) return null; // 1
  let fn = index; // 2
  let sn = size - 1;
  const sides: boolean[] = [];
  for (let i = 0; i < pathLength; i++) {
    // 4
    if (sn === 0) return null; // 4a
    if (isOdd(fn) || fn === sn) {
      // 4b
      sides.push(true);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sides.push(false);
    }
    fn = half(fn); // 4c
    sn = half(sn);
  }
  return sn === 0 ? sides : null; // 5 (the root comparison is the caller's)
}

/** A safe non-negative integer: a tree size or index. */
export function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}

export function isOdd(n: number): boolean {
  return n % 2 === 1;
}

export function half(n: number): number {
  return Math.floor(n / 2);
}
