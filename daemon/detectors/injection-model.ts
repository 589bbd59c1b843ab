// The trained prompt-injection classifier: a logistic regression over hashed word uni/bigrams and
// character 3-5-grams in two heads (injection-model.json for what a user sends, injection-model-data.json
// for what a tool returns; written by scripts/train-injection.mjs), scored on every
// sentence and run of sentences and reported as the strongest, so innocent text around an attack
// never dilutes it. Features belong to one word each, so a window scores the same wherever it sits.
// The feature space is injection-model-features.ts, the weights file's format injection-model-file.ts.
import { fnv, MASK, mix, tokenize, wordBuckets, WINDOWS } from './injection-model-features.js';
import type { InjectionModel } from './injection-model-file.js';

/**
 * Fewer words (tokens of letters or digits; punctuation does not count) than this are too little
 * evidence for the model: a lone word's few features swing the score (the single line "complete"
 * scored 0.82, `{"a":"b"}` 0.71). Such a window is not scored; the rules still judge short texts.
 * Three, not four: on the development split four lost two attacks, three one (docs/verify.md, model card).
 */
export const MIN_WINDOW_WORDS = 3;
const WORDLIKE = /^[\p{L}\p{N}_'’]/u;

export interface ModelScore {
  /** Probability of an attack in the strongest window. */
  readonly score: number;
  /** Offsets in the text of the strongest window. */
  readonly start: number;
  readonly end: number;
  /** Work done: words and windows scored (bounded by the text's length). */
  readonly words: number;
  readonly windows: number;
}

/** What one word contributes, computed once per word and model: its own features' weight sum and count, and its halves of a bigram's hash. */
interface WordEntry {
  readonly weight: number;
  readonly count: number;
  /** fnv(word, 2): the word as the first of a bigram. */
  readonly first: number;
  /** fnv(word, 3): the word as the second of a bigram. */
  readonly second: number;
}
// Per-word entries of each model, kept across calls: common words recur.
const CACHE_LIMIT = 16384;
const caches = new WeakMap<InjectionModel, Map<string, WordEntry>>();

function wordEntry(model: InjectionModel, word: string): WordEntry {
  const buckets = wordBuckets(word);
  let weight = 0;
  for (const b of buckets) weight += model.weights[b]!;
  return { weight, count: buckets.length, first: fnv(word, 2), second: fnv(word, 3) };
}
const sigmoid = (z: number): number => 1 / (1 + Math.exp(-z));

const cuePatterns = new WeakMap<readonly string[], RegExp>();
/** One alternation of the cues, longest first (one pass over the text instead of one per cue); each occurrence counts once. */
function cuePattern(cues: readonly string[]): RegExp {
  let re = cuePatterns.get(cues);
  if (re === undefined) {
    const alternatives = [...new Set(cues)].sort((a, b) => b.length - a.length).map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    cuePatterns.set(cues, (re = new RegExp(alternatives.join('|'), 'g')));
  }
  return re;
}

/** Reporting words (`cues`) per window: prefix counts by word, from one indexOf pass per cue. */
function cueCounts(lower: string, starts: readonly number[], cues: readonly string[]): Int32Array | null {
  const re = cuePattern(cues);
  const at: number[] = [];
  re.lastIndex = 0;
  for (let m = re.exec(lower); m !== null && at.length < 1024; m = re.exec(lower)) at.push(m.index);
  if (at.length === 0) return null;
  const perWord = new Int32Array(starts.length + 1);
  for (const i of at) {
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (starts[mid]! <= i) lo = mid + 1;
      else hi = mid;
    }
    perWord[lo]!++;
  }
  for (let j = 1; j <= starts.length; j++) perWord[j]! += perWord[j - 1]!;
  return perWord;
}

/**
 * The strongest window's attack probability. Linear work: per-word sums, then O(1) per window.
 * A window written in the reporting voice (`cues`: "researchers", "for example") counts for less, as
 * the rules' damping does; per window, so a cue in another sentence never lowers an attack.
 */
export function scoreModel(text: string, model: InjectionModel, cues: readonly string[] = []): ModelScore {
  const { words, starts, ends, units, lower } = tokenize(text);
  const n = words.length;
  const reported = cues.length > 0 ? cueCounts(lower, starts, cues) : null;
  // Prefix sums of weight and feature count: word j's own features, and the bigram ending at j.
  const ownW = new Float64Array(n + 1);
  const ownC = new Float64Array(n + 1);
  const biW = new Float64Array(n + 1);
  const wordsBefore = new Int32Array(n + 1); // tokens of letters or digits before word j
  for (let j = 0; j < n; j++) wordsBefore[j + 1] = wordsBefore[j]! + (WORDLIKE.test(words[j]!) ? 1 : 0);
  let cache = caches.get(model);
  if (cache === undefined || cache.size >= CACHE_LIMIT) caches.set(model, (cache = new Map()));
  let prev: WordEntry | null = null;
  for (let j = 0; j < n; j++) {
    const w = words[j]!;
    let own = cache.get(w);
    if (own === undefined) cache.set(w, (own = wordEntry(model, w)));
    ownW[j + 1] = ownW[j]! + own.weight;
    ownC[j + 1] = ownC[j]! + own.count;
    // bigramBucket(previous word, w), from the hashes cached with each word.
    biW[j + 1] = biW[j]! + (prev !== null ? model.weights[mix(prev.first, own.second) & MASK]! : 0);
    prev = own;
  }
  let best = -Infinity;
  let at: [number, number] = [0, 0];
  let windows = 0;
  for (let u = 0; u + 1 < units.length; u++)
    for (let r = 1; r <= WINDOWS.run && u + r < units.length; r++) {
      const a = units[u]!;
      const b = units[u + r]!;
      if (wordsBefore[b]! - wordsBefore[a]! < MIN_WINDOW_WORDS) continue;
      // Bigrams inside the window only: the one ending at its first word reaches outside.
      const count = ownC[b]! - ownC[a]! + (b - a - 1);
      const p = sigmoid(model.bias + (ownW[b]! - ownW[a]! + biW[b]! - biW[a + 1]!) / Math.sqrt(count));
      // reported[j] counts the cues in words before j.
      const c = reported === null ? 0 : reported[b]! - reported[a]!;
      const damped = p * (c >= 2 ? 0.5 : c === 1 ? 0.75 : 1);
      windows++;
      if (damped > best) {
        best = damped;
        at = [starts[a]!, ends[b - 1]!];
      }
    }
  return { score: windows === 0 ? 0 : best, start: at[0], end: at[1], words: n, windows };
}
