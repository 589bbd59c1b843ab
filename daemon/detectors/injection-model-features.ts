// The classifier's feature space, shared by the daemon and scripts/train-injection.mjs: a text cut into
// words and sentence units (tokenize), each word's hashed unigram and character 3-5-grams, and the
// bigram of two words, in 2^18 buckets. Training and scoring read the same buckets through this code.

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

export const MASK = FEATURES.buckets - 1;

export function fnv(s: string, seed: number, from = 0, to = s.length): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = from; i < to; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
export const mix = (a: number, b: number): number => Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b) >>> 0;

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
