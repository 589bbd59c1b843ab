// RFC 9162 (Certificate Transparency v2) Merkle tree over SHA-256: the tree hash, inclusion and
// consistency proofs with their verifiers, and a compact range the daemon keeps per project so it
// never needs every leaf in memory to know the current root.
//
// Sizes and indexes are JavaScript numbers, exact up to Number.MAX_SAFE_INTEGER (2^53 - 1); every
// entry point rejects anything else. No bitwise operators are used on them, because those truncate
// to 32 bits. Hashes are 32-byte Buffers; verifiers return false, never throw, on bad input.
import { hash } from 'node:crypto';
import { half, inclusionSides, isCount, isOdd } from './merkle-path.js';

export const HASH_SIZE = 32;

const LEAF_PREFIX = Buffer.from([0x00]);
const EMPTY_ROOT = sha256(Buffer.alloc(0));
// nodeHash runs about n times per proof; one reused buffer avoids an allocation per call.
const nodeInput = Buffer.alloc(1 + 2 * HASH_SIZE);
nodeInput[0] = 0x01;

function sha256(data: Buffer): Buffer {
  return hash('sha256', data, 'buffer') as unknown as Buffer;
}

/** SHA-256(0x00 || data): the hash of one leaf's data. */
export function leafHash(data: Buffer): Buffer {
  return sha256(Buffer.concat([LEAF_PREFIX, data]));
}

/** SHA-256(0x01 || left || right): the hash of an interior node. */
export function nodeHash(left: Buffer, right: Buffer): Buffer {
  if (left.length !== HASH_SIZE || right.length !== HASH_SIZE) {
    return sha256(Buffer.concat([nodeInput.subarray(0, 1), left, right]));
  }
  left.copy(nodeInput, 1);
  right.copy(nodeInput, 1 + HASH_SIZE);
  return sha256(nodeInput);
}

/** SHA-256 of the empty string: the root of a tree with no leaves. */
export function emptyRoot(): Buffer {
  return Buffer.from(EMPTY_ROOT);
}

/** MTH(D_n) of RFC 9162 §2.1.1, over leaf hashes already computed with leafHash. */
export function rootFromLeaves(leafHashes: readonly Buffer[]): Buffer {
  assertLeaves(leafHashes);
  return subtreeRoot(leafHashes, 0, leafHashes.length);
}

/**
 * PATH(index, D_n) of RFC 9162 §2.1.3.1, ordered from the leaf's sibling up to the root's child.
 * Each element is the root of a disjoint range of leaves, so the whole proof costs n - 1 hashes.
 */
export function inclusionProof(index: number, leafHashes: readonly Buffer[]): Buffer[] {
  const n = leafHashes.length;
  if (!isCount(index) || index >= n) throw new RangeError(`leaf index ${index} is not in a tree of size ${n}`);
  assertLeaves(leafHashes);
  const fromTop: Buffer[] = [];
  let lo = 0;
  let hi = n;
  while (hi - lo > 1) {
    const mid = lo + largestPowerOfTwoBelow(hi - lo);
    if (index < mid) {
      fromTop.push(subtreeRoot(leafHashes, mid, hi));
      hi = mid;
    } else {
      fromTop.push(subtreeRoot(leafHashes, lo, mid));
      lo = mid;
    }
  }
  return fromTop.reverse();
}

/**
 * PROOF(m, D_n) of RFC 9162 §2.1.4.1 (SUBPROOF unrolled into a loop). The proofs for m = 0 and
 * m = n are empty: there is nothing to prove. Costs at most n - 1 hashes.
 */
export function consistencyProof(m: number, leafHashes: readonly Buffer[]): Buffer[] {
  const n = leafHashes.length;
  if (!isCount(m) || m > n) throw new RangeError(`size ${m} is not a prefix of a tree of size ${n}`);
  assertLeaves(leafHashes);
  if (m === 0 || m === n) return [];
  const fromTop: Buffer[] = [];
  let lo = 0;
  let hi = n;
  let wholeOldTree = true; // SUBPROOF's b: the current range's left edge is the old tree's root
  while (m !== hi) {
    const mid = lo + largestPowerOfTwoBelow(hi - lo);
    if (m <= mid) {
      fromTop.push(subtreeRoot(leafHashes, mid, hi));
      hi = mid;
    } else {
      fromTop.push(subtreeRoot(leafHashes, lo, mid));
      lo = mid;
      wholeOldTree = false;
    }
  }
  if (!wholeOldTree) fromTop.push(subtreeRoot(leafHashes, lo, hi));
  return fromTop.reverse();
}

/** The inclusion verification of RFC 9162 §2.1.3.2 (the path's arithmetic in merkle-path.ts). */
export function verifyInclusion(index: number, size: number, leaf: Buffer, proof: readonly Buffer[], root: Buffer): boolean {
  if (!isHash(leaf) || !isHash(root) || !isHashList(proof)) return false;
  const sides = inclusionSides(index, size, proof.length);
  if (sides === null) return false;
  let r = leaf;
  proof.forEach((p, i) => {
    r = sides[i] ? nodeHash(p, r) : nodeHash(r, p);
  });
  return r.equals(root);
}

/**
 * The consistency verification of RFC 9162 §2.1.4.2 for 0 < size1 < size2, step for step. The
 * cases the RFC leaves out: equal sizes need an empty proof and equal roots; an empty old tree
 * needs an empty proof and the empty-tree root; a shrinking tree is never consistent.
 */
export function verifyConsistency(size1: number, size2: number, root1: Buffer, root2: Buffer, proof: readonly Buffer[]): boolean {
  if (!isCount(size1) || !isCount(size2) || !isHash(root1) || !isHash(root2) || !isHashList(proof)) return false;
  if (size1 > size2) return false;
  if (size1 === 0) return proof.length === 0 && root1.equals(EMPTY_ROOT) && (size2 > 0 || root2.equals(EMPTY_ROOT));
  if (size1 === size2) return proof.length === 0 && root1.equals(root2);
  if (proof.length === 0) return false; // 1
  const path = isPowerOfTwo(size1) ? [root1, ...proof] : proof; // 2
  let fn = size1 - 1; // 3
  let sn = size2 - 1;
  while (isOdd(fn)) {
    // 4
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!; // 5
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    // 6
    if (sn === 0) return false; // 6a
    if (isOdd(fn) || fn === sn) {
      // 6b
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (!isOdd(fn) && fn !== 0) {
        fn = half(fn);
        sn = half(sn);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = half(fn);
    sn = half(sn);
  }
  return fr.equals(root1) && sr.equals(root2) && sn === 0; // 7
}

/**
 * The hashes of the perfect subtrees that make up a tree of `size` leaves (one per set bit of
 * size, largest first). That is all it takes to append and to compute the root, so the daemon
 * persists (size, peaks) per project and resumes from them after a restart.
 */
export class CompactTree {
  #size: number;
  #peaks: Buffer[];

  constructor(size = 0, peaks: readonly Buffer[] = []) {
    if (!isCount(size)) throw new RangeError(`tree size ${size} is not a safe non-negative integer`);
    if (peaks.length !== bitCount(size)) throw new RangeError(`a tree of size ${size} has ${bitCount(size)} peaks, not ${peaks.length}`);
    if (!isHashList(peaks)) throw new TypeError(`peaks must be ${HASH_SIZE}-byte Buffers`);
    this.#size = size;
    this.#peaks = peaks.map((p) => Buffer.from(p));
  }

  get size(): number {
    return this.#size;
  }

  append(leaf: Buffer): void {
    if (!isHash(leaf)) throw new TypeError(`a leaf hash must be a ${HASH_SIZE}-byte Buffer`);
    if (this.#size >= Number.MAX_SAFE_INTEGER) throw new RangeError('tree size would pass Number.MAX_SAFE_INTEGER');
    let node = leaf;
    for (let s = this.#size; isOdd(s); s = half(s)) node = nodeHash(this.#peaks.pop()!, node);
    this.#peaks.push(node === leaf ? Buffer.from(leaf) : node);
    this.#size += 1;
  }

  root(): Buffer {
    const peaks = this.#peaks;
    if (peaks.length === 0) return emptyRoot();
    let acc = peaks[peaks.length - 1]!;
    for (let i = peaks.length - 2; i >= 0; i--) acc = nodeHash(peaks[i]!, acc);
    return peaks.length === 1 ? Buffer.from(acc) : acc;
  }

  peaks(): Buffer[] {
    return this.#peaks.map((p) => Buffer.from(p));
  }
}

// MTH of leafHashes[lo, hi): lo..hi is always one of the RFC's subtrees, whose MTH equals the
// right-to-left fold of its compact range, so this is n - 1 hashes with no recursion.
function subtreeRoot(leafHashes: readonly Buffer[], lo: number, hi: number): Buffer {
  if (hi === lo) return emptyRoot();
  const range = new CompactTree();
  for (let i = lo; i < hi; i++) range.append(leafHashes[i]!);
  return range.root();
}

function assertLeaves(leafHashes: readonly Buffer[]): void {
  for (let i = 0; i < leafHashes.length; i++) {
    if (!isHash(leafHashes[i])) throw new TypeError(`leaf hash ${i} is not a ${HASH_SIZE}-byte Buffer`);
  }
}

function isHash(value: unknown): value is Buffer {
  return Buffer.isBuffer(value) && value.length === HASH_SIZE;
}

function isHashList(value: unknown): value is Buffer[] {
  return Array.isArray(value) && value.every(isHash);
}

function isPowerOfTwo(n: number): boolean {
  let x = n;
  while (x > 1 && !isOdd(x)) x = half(x);
  return x === 1;
}

function bitCount(n: number): number {
  let count = 0;
  for (let x = n; x > 0; x = half(x)) if (isOdd(x)) count += 1;
  return count;
}

// The k of RFC 9162 §2.1.1: the largest power of two smaller than n, for n >= 2.
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
