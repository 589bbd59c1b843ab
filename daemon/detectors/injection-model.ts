// The trained prompt-injection classifier: a logistic regression over hashed word uni/bigrams and
// character 3-5-grams in two heads (injection-model.json for what a user sends, injection-model-data.json
// for what a tool returns; written by scripts/train-injection.mjs), scored on every
// sentence and run of sentences and reported as the strongest, so innocent text around an attack
// never dilutes it. Features belong to one word each, so a window scores the same wherever it sits.
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';
import { z } from 'zod';

/** The feature space; the weights file repeats it and loading fails on any difference. */
export const FEATURES = {
  buckets: 1 << 18,
  hash: 'fnv1a32',
  words: [1, 2],
  chars: [3, 5],
  maxWordChars: 40,
  normalize: 'NFKC, lower case, whitespace-separated tokens',
} as const;
/** Windows: sentences cut into units of at most `unitWords` words, scored alone and in runs of up to `run` units. */
export const WINDOWS = { unitWords: 24, run: 3 } as const;
/**
 * Fewer words (tokens of letters or digits; punctuation does not count) than this are too little
 * evidence for the model: a lone word's few features swing the score (the single line "complete"
 * scored 0.82, `{"a":"b"}` 0.71). Such a window is not scored; the rules still judge short texts.
 * Three, not four: on the development split four lost two attacks, three one (docs/verify.md, model card).
 */
export const MIN_WINDOW_WORDS = 3;
const WORDLIKE = /^[\p{L}\p{N}_'’]/u;

const MASK = FEATURES.buckets - 1;

function fnv(s: string, seed: number, from = 0, to = s.length): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
const mix = (a: number, b: number): number => Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b) >>> 0;

/** The buckets of one word on its own: its unigram and the character n-grams of `<word>`. */
export function wordBuckets(word: string): number[] {
  const out = [fnv(word, 1) & MASK];
  const padded = `<${word.slice(0, FEATURES.maxWordChars)}>`;
  for (let n = FEATURES.chars[0]; n <= FEATURES.chars[1]; n++)
    for (let i = 0; i + n <= padded.length; i++) out.push(fnv(padded, 16 + n, i, i + n) & MASK);
  return out;
}
const bigramBucket = (prev: string, word: string): number => mix(fnv(prev, 2), fnv(word, 3)) & MASK;

export interface Tokens {
  readonly words: string[];
  readonly starts: number[];
  readonly ends: number[];
  /** Index of the first word of each unit, then words.length. */
  readonly units: number[];
  /** The text in lower case. */
  readonly lower: string;
}

const WORD_CHAR = /[\p{L}\p{N}_'’]/u;
const SPACE_CHAR = /\s/u;
const FULL_STOP = /[.!?。！？]/;
enum Kind {
  Space,
  Word,
  Other,
}
/** What the character at code `c` is: ASCII by table, the rest by the Unicode classes the trainer used. */
function kindOf(text: string, i: number, c: number): Kind {
  if (c < 0x80) {
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 39) return Kind.Word;
    return c === 32 || (c >= 9 && c <= 13) ? Kind.Space : Kind.Other;
  }
  const ch = String.fromCodePoint(text.codePointAt(i)!);
  return WORD_CHAR.test(ch) ? Kind.Word : SPACE_CHAR.test(ch) ? Kind.Space : Kind.Other;
}

/**
 * Words (NFKC, lower case) with their offsets in `text`, cut into sentence units. A token is a run of
 * letters, digits, `_` and apostrophes, or a run of other characters that are not whitespace; one
 * scan over the character codes (a Unicode regex per token cost a fifth of the detector's time).
 */
export function tokenize(text: string): Tokens {
  const words: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const units = [0];
  let unitStart = 0;
  // NFKC leaves ASCII as it is: one lower-casing of the whole text serves every ASCII token.
  const lower = text.toLowerCase();
  const aligned = lower.length === text.length;
  let newline = false; // a newline since the last token ended
  for (let i = 0; i < text.length; ) {
    const c = text.charCodeAt(i);
    const kind = kindOf(text, i, c);
    if (kind === Kind.Space) {
      if (c === 10) newline = true;
      i++; // whitespace is never astral
      continue;
    }
    const start = i;
    let ascii = aligned;
    let stop = false;
    while (i < text.length) {
      const d = text.charCodeAt(i);
      if (kindOf(text, i, d) !== kind) break;
      if (d >= 0x80) ascii = false;
      else if (kind === Kind.Other && (d === 46 || d === 33 || d === 63)) stop = true;
      i += d >= 0xd800 && d <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00 ? 2 : 1;
    }
    // A newline between two words ends the unit, as does a full unit.
    if (words.length > unitStart && (newline || words.length - unitStart >= WINDOWS.unitWords)) units.push((unitStart = words.length));
    newline = false;
    words.push(ascii ? lower.slice(start, i) : text.slice(start, i).normalize('NFKC').toLowerCase());
    starts.push(start);
    ends.push(i);
    // Only punctuation tokens can hold a full stop: word tokens are letters, digits, _ and apostrophes.
    if (kind === Kind.Other && (stop || (!ascii && FULL_STOP.test(text.slice(start, i))))) units.push((unitStart = words.length));
  }
  if (units[units.length - 1] !== words.length) units.push(words.length);
  return { words, starts, ends, units, lower };
}

/** Every feature bucket of a text with its count (what the trainer sees; scoring reads the same buckets per window). */
export function textFeatures(text: string): Map<number, number> {
  const { words } = tokenize(text);
  const counts = new Map<number, number>();
  const add = (b: number): void => void counts.set(b, (counts.get(b) ?? 0) + 1);
  words.forEach((w, j) => {
    for (const b of wordBuckets(w)) add(b);
    if (j > 0) add(bigramBucket(words[j - 1]!, w));
  });
  return counts;
}

// ---- the shipped model ----

const ModelFileSchema = z.object({
  version: z.literal(1),
  features: z.object({
    buckets: z.literal(FEATURES.buckets),
    hash: z.literal(FEATURES.hash),
    words: z.tuple([z.literal(1), z.literal(2)]),
    chars: z.tuple([z.literal(3), z.literal(5)]),
    maxWordChars: z.literal(FEATURES.maxWordChars),
  }),
  windows: z.object({ unitWords: z.literal(WINDOWS.unitWords), run: z.literal(WINDOWS.run) }),
  bias: z.number(),
  scale: z.number().positive(),
  /** int8 weights (times scale), raw deflate, base64. */
  weights: z.string(),
  thresholds: z.object({ block: z.number().min(0).max(1), flag: z.number().min(0).max(1) }),
  /** Which head: what a user sends, or what a tool returns (absent in files before issue 26: prompt). */
  head: z.enum(['prompt', 'data']).optional(),
  data: z.record(z.string(), z.unknown()),
});
export type ModelFile = z.infer<typeof ModelFileSchema>;

export interface InjectionModel {
  readonly bias: number;
  readonly weights: Float32Array;
  readonly thresholds: { readonly block: number; readonly flag: number };
}

export const MODEL_PATH = fileURLToPath(new URL('../../../daemon/detectors/injection-model.json', import.meta.url));
/** The data head: the same features, trained also on attacks inside tool results and documents. */
export const DATA_MODEL_PATH = fileURLToPath(new URL('../../../daemon/detectors/injection-model-data.json', import.meta.url));

/** A weights file's content (parsed JSON) as a model; throws on any mismatch with this code's feature space. */
export function modelOf(content: unknown): InjectionModel {
  const file = ModelFileSchema.parse(content);
  const bytes = inflateRawSync(Buffer.from(file.weights, 'base64'));
  if (bytes.length !== FEATURES.buckets) throw new Error(`injection model: ${bytes.length} weights, expected ${FEATURES.buckets}`);
  const q = new Int8Array(bytes.buffer, bytes.byteOffset, bytes.length);
  const weights = new Float32Array(FEATURES.buckets);
  for (let i = 0; i < q.length; i++) weights[i] = q[i]! * file.scale;
  return { bias: file.bias, weights, thresholds: file.thresholds };
}

/** Parses a weights file's text; throws on any mismatch with this code's feature space. */
export function parseModel(json: string): InjectionModel {
  return modelOf(JSON.parse(json));
}

/** modelOf(), its error naming the file (`source`): a daemon that cannot start says which. */
export function modelFrom(content: unknown, source: string): InjectionModel {
  try {
    return modelOf(content);
  } catch (err) {
    throw new Error(`injection model ${source} does not load: ${err instanceof Error ? err.message : String(err)}`);
  }
}

// ---- scoring ----

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
