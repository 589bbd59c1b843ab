// re2-wasm's memory, and the internal wrapper both matching and release go through: which
// WebAssembly heap a pattern is compiled in, releasing compiled patterns, and dropping them all
// when a heap runs out anyway. Used by the regex and secrets detectors.
import { createRequire } from 'node:module';
import { RE2 } from 're2-wasm';

export interface WrappedRe2 {
  match(text: string, start: number, groups: boolean): { index: number; match: string; groups: Array<string | undefined> };
  delete(): void;
}

/**
 * re2-wasm's exec always asks RE2 for submatches, which RE2 extracts with its NFA: about 1 ms a call
 * for the large gitleaks programs against microseconds for the match alone. Its internal wrapper
 * (re2-wasm 1.0.2, pinned) takes that choice as a flag; keywords.test.ts fails if it goes away.
 */
export function re2Wrapper(re: RE2): WrappedRe2 {
  return (re as unknown as { wrapper: WrappedRe2 }).wrapper;
}

/** re2-wasm keeps each program (and its DFA cache) in WebAssembly memory until its wrapper is deleted. */
export function releaseRe2(re: RE2): void {
  re2Wrapper(re).delete();
}

// re2-wasm's heap is a fixed 16 MB for every pattern of one instance, and a pattern's DFA takes
// ~45 KB on its first match and grows with the text it sees. Running out aborts the call with a
// RuntimeError. So patterns are spread over instances (re2Heap), and holders of compiled patterns
// register here to drop them all when a heap runs out anyway: the failing request fails (the
// pipeline blocks it), the next ones compile afresh.
const releasers: Array<() => void> = [];
export function onRe2Exhausted(release: () => void): void {
  releasers.push(release);
}

const requireCjs = createRequire(import.meta.url);
const heaps: Array<typeof RE2> = [RE2];

/**
 * The RE2 class of WebAssembly heap n. Heap 0 is the imported re2-wasm, for policy patterns; each
 * further heap is a separate instance of the package (loaded anew by dropping it from the module
 * cache), with a 16 MB heap of its own.
 */
export function re2Heap(n: number): typeof RE2 {
  while (heaps.length <= n) {
    for (const id of [requireCjs.resolve('re2-wasm'), requireCjs.resolve('re2-wasm/build/wasm/re2.js')]) delete requireCjs.cache[id];
    heaps.push((requireCjs('re2-wasm') as { RE2: typeof RE2 }).RE2);
  }
  return heaps[n]!;
}

/** Runs fn; if re2-wasm ran out of memory on the way, releases every compiled pattern and says so. */
export function guardRe2<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (!(err instanceof Error) || !/Cannot enlarge memory|\(OOM\)/.test(err.message)) throw err;
    for (const release of releasers) release();
    throw new Error('RE2 ran out of a 16 MB WebAssembly heap; every compiled pattern was released', { cause: err });
  }
}
