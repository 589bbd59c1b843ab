// A policy's own words and patterns. 'keywords': case-insensitive, whole words by default, all
// words found in one pass. 'regex': user patterns run by RE2 (re2-wasm), whose matching time is
// linear in the text whatever the pattern, so no pattern a policy author writes can stall the daemon.
// Also home of the matching primitives the secrets and injection detectors share: re2Matches and
// WordAutomaton.
import { createRequire } from 'node:module';
import { RE2 } from 're2-wasm';
import { z } from 'zod';
import type { Detector, Finding } from './types.js';

export const MAX_PATTERNS = 32;
export const MAX_PATTERN_LENGTH = 512;
export const MAX_WORDS = 1000;
export const MAX_WORD_CHARS = 20_000;
export const MAX_MATCHES = 1000;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** RE2 matches nothing in a string holding a lone surrogate; U+FFFD keeps every offset where it was. */
export function wellFormed(text: string): string {
  return /[\uD800-\uDFFF]/.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}

/** Lower-cased text with the same offsets (a few characters grow when lower-cased; then only A-Z are). */
export function lowerSameLength(text: string): string {
  const lower = text.toLowerCase();
  return lower.length === text.length ? lower : text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

export interface Re2Match {
  /** UTF-16 offsets into the scanned text. */
  readonly start: number;
  readonly end: number;
  /** [whole match, group 1, ...]; undefined for a group that took no part; only the whole match without `groups`. */
  readonly groups: ReadonlyArray<string | undefined>;
}

interface WrappedRe2 {
  match(text: string, start: number, groups: boolean): { index: number; match: string; groups: Array<string | undefined> };
  delete(): void;
}

/**
 * re2-wasm's exec always asks RE2 for submatches, which RE2 extracts with its NFA: about 1 ms a call
 * for the large gitleaks programs against microseconds for the match alone. Its internal wrapper
 * (re2-wasm 1.0.2, pinned) takes that choice as a flag; keywords.test.ts fails if it goes away.
 */
function wrapped(re: RE2): WrappedRe2 {
  return (re as unknown as { wrapper: WrappedRe2 }).wrapper;
}

/** re2-wasm keeps each program (and its DFA cache) in WebAssembly memory until its wrapper is deleted. */
export function releaseRe2(re: RE2): void {
  wrapped(re).delete();
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

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 === s.length) n++;
  }
  return n;
}

/**
 * Every match of an RE2 in a well-formed text, at most `limit`, with submatches only if asked.
 * RE2 counts offsets in code points; they are turned into UTF-16 offsets here. Each call copies
 * its input into WebAssembly memory, so each search gets only the rest of the text, from one
 * character before the cursor (for \b and ^) and at most `lookahead` characters past it: a caller
 * that knows its matches are shorter saves the copies; a match reaching the cut is searched again
 * in the whole rest.
 */
export function re2Matches(re: RE2, text: string, limit: number, groups = true, lookahead = Infinity): Re2Match[] {
  const out: Re2Match[] = [];
  const wrapper = wrapped(re);
  const offset = /[\uD800-\uDBFF]/.test(text) ? unitOffset : (_: string, cp: number): number => cp;
  for (let cursor = 0; out.length < limit && cursor <= text.length;) {
    const from = cursor > 0 ? cursor - (isLowSurrogate(text.charCodeAt(cursor - 1)) ? 2 : 1) : 0;
    let slice = text.slice(from, cursor + lookahead);
    let m = wrapper.match(slice, codePoints(text.slice(from, cursor)), groups);
    if (slice.length < text.length - from && (m.index < 0 || offset(slice, m.index) + m.match.length === slice.length)) {
      slice = text.slice(from);
      m = wrapper.match(slice, codePoints(text.slice(from, cursor)), groups);
    }
    if (m.index < 0) break;
    const start = from + offset(slice, m.index);
    out.push({ start, end: start + m.match.length, groups: [m.match, ...m.groups] });
    cursor = start + Math.max(m.match.length, isHighSurrogate(text.charCodeAt(start)) ? 2 : 1);
  }
  return out;
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** UTF-16 offset of code point `cp` in a well-formed string. */
function unitOffset(s: string, cp: number): number {
  let unit = 0;
  for (let n = 0; n < cp && unit < s.length; n++) unit += isHighSurrogate(s.charCodeAt(unit)) ? 2 : 1;
  return unit;
}

/**
 * Aho-Corasick over UTF-16 code units: every occurrence of every word in one pass over the text,
 * whatever the number of words (indexOf per word costs a pass each). ASCII steps go through a
 * precomputed table; other characters follow the trie and its failure links.
 */
export class WordAutomaton {
  private readonly ascii: Int32Array;
  private readonly edges: Array<Map<number, number>> = [new Map()];
  private readonly fail: number[] = [0];
  private readonly out: number[][] = [[]];

  constructor(readonly words: readonly string[]) {
    words.forEach((w, i) => {
      let s = 0;
      for (let k = 0; k < w.length; k++) {
        const c = w.charCodeAt(k);
        let next = this.edges[s]!.get(c);
        if (next === undefined) {
          next = this.edges.push(new Map()) - 1;
          this.fail.push(0);
          this.out.push([]);
          this.edges[s]!.set(c, next);
        }
        s = next;
      }
      if (w.length > 0) this.out[s]!.push(i);
    });
    const order = this.linkFailures();
    this.ascii = new Int32Array(this.edges.length * 128);
    for (const s of order) {
      for (let c = 0; c < 128; c++) {
        this.ascii[s * 128 + c] = this.edges[s]!.get(c) ?? (s === 0 ? 0 : this.ascii[this.fail[s]! * 128 + c]!);
      }
    }
  }

  /** Breadth-first failure links; returns the states in that order. */
  private linkFailures(): number[] {
    const order = [0];
    for (let q = 0; q < order.length; q++) {
      const u = order[q]!;
      for (const [c, v] of this.edges[u]!) {
        order.push(v);
        if (u !== 0) this.fail[v] = this.step(this.fail[u]!, c, false);
        this.out[v]!.push(...this.out[this.fail[v]!]!);
      }
    }
    return order;
  }

  private step(s: number, c: number, table = true): number {
    if (table && c < 128) return this.ascii[s * 128 + c]!;
    for (;;) {
      const next = this.edges[s]!.get(c);
      if (next !== undefined) return next;
      if (s === 0) return 0;
      s = this.fail[s]!;
    }
  }

  /** Calls `hit(word index, end offset)` for each occurrence, in order of end; `false` stops the scan. */
  scan(text: string, hit: (word: number, end: number) => boolean | void): void {
    let s = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      s = c < 128 ? this.ascii[s * 128 + c]! : this.step(s, c, false);
      const found = this.out[s]!;
      for (let k = 0; k < found.length; k++) if (hit(found[k]!, i + 1) === false) return;
    }
  }

  /** Which words occur at least once. */
  present(text: string): boolean[] {
    const seen = new Array<boolean>(this.words.length).fill(false);
    this.scan(text, (w) => { seen[w] = true; });
    return seen;
  }
}

const ENTITY = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'entity: upper snake case, at most 64 characters');
const MATCH_CAP = z.number().int().min(1).max(MAX_MATCHES).default(100);

// ---- keywords ----

const KeywordsConfigSchema = z.object({
  words: z.array(z.string().trim().min(1).max(200)).min(1).max(MAX_WORDS)
    .refine((words) => words.reduce((n, w) => n + w.length, 0) <= MAX_WORD_CHARS, { message: `words: at most ${MAX_WORD_CHARS} characters in all` }),
  whole_word: z.boolean().default(true),
  entity: ENTITY.default('CUSTOM_KEYWORD'),
  max_matches: MATCH_CAP,
}).strict();
export type KeywordsConfig = z.output<typeof KeywordsConfigSchema>;

const WORDISH = /[\p{L}\p{N}_]/u;
function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && WORDISH.test(ch);
}

// A parsed configuration is reused across calls, so its automaton is built once.
const AUTOMATA = new WeakMap<KeywordsConfig, WordAutomaton>();
function automatonFor(config: KeywordsConfig): WordAutomaton {
  let a = AUTOMATA.get(config);
  if (a === undefined) AUTOMATA.set(config, (a = new WordAutomaton([...new Set(config.words.map(lowerSameLength))])));
  return a;
}

export const keywordsDetector: Detector<KeywordsConfig> = {
  name: 'keywords',
  parseConfig: (config) => KeywordsConfigSchema.parse(config),
  detect(text, config) {
    const automaton = automatonFor(config);
    const out: Finding[] = [];
    automaton.scan(lowerSameLength(text), (w, end) => {
      const word = automaton.words[w]!;
      const start = end - word.length;
      if (config.whole_word && (isWordChar(text[start - 1]) || isWordChar(text[end]))) return true;
      out.push({ detector: 'keywords', entity: config.entity, start, end, score: 1, rule: word });
      return out.length < config.max_matches;
    });
    return out.sort((a, b) => a.start - b.start || b.end - a.end);
  },
};

// ---- regex ----

const COMPILED = new Map<string, RE2>();
const CACHE_SIZE = 128;
onRe2Exhausted(() => {
  for (const re of COMPILED.values()) releaseRe2(re);
  COMPILED.clear();
});

/** Compiles once per (pattern, flags); throws SyntaxError when RE2 refuses the pattern. */
function compiled(pattern: string, caseInsensitive: boolean): RE2 {
  const key = (caseInsensitive ? 'i' : '-') + pattern;
  let re = COMPILED.get(key);
  if (re === undefined) {
    re = new RE2(pattern, caseInsensitive ? 'giu' : 'gu');
    if (COMPILED.size >= CACHE_SIZE) {
      const oldest = COMPILED.keys().next().value!;
      releaseRe2(COMPILED.get(oldest)!);
      COMPILED.delete(oldest);
    }
    COMPILED.set(key, re);
  }
  return re;
}

/** Why RE2 refuses a pattern, or null when it compiles and cannot match the empty string. */
export function patternProblem(pattern: string, caseInsensitive: boolean): string | null {
  try {
    compiled(pattern, caseInsensitive);
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    // re2-wasm's message is "Invalid regular expression: /<pattern>/<flags>: <reason>".
    const message = err.message;
    const at = message.lastIndexOf('u: ');
    const reason = at >= 0 ? message.slice(at + 3) : message;
    return `RE2 cannot compile this pattern (${reason}); RE2 has no lookaround and no backreferences`;
  }
  const whole = new RE2(`^(?:${pattern})$`, caseInsensitive ? 'iu' : 'u');
  const empty = whole.test('');
  releaseRe2(whole);
  return empty ? 'the pattern matches the empty string' : null;
}

const PatternSchema = z.object({
  pattern: z.string().min(1).max(MAX_PATTERN_LENGTH),
  entity: ENTITY.default('CUSTOM_REGEX'),
  case_insensitive: z.boolean().default(false),
}).strict();

const RegexConfigSchema = z.object({
  patterns: z.array(PatternSchema).min(1).max(MAX_PATTERNS),
  max_matches: MATCH_CAP,
}).strict().superRefine((config, ctx) => {
  config.patterns.forEach((p, i) => {
    const problem = patternProblem(p.pattern, p.case_insensitive);
    if (problem !== null) ctx.addIssue({ code: 'custom', path: ['patterns', i, 'pattern'], message: problem });
  });
});
export type RegexConfig = z.output<typeof RegexConfigSchema>;

export const regexDetector: Detector<RegexConfig> = {
  name: 'regex',
  parseConfig: (config) => guardRe2(() => RegexConfigSchema.parse(config)),
  detect: (text, config) => guardRe2(() => {
    const safe = wellFormed(text);
    const out: Finding[] = [];
    config.patterns.forEach((p, i) => {
      const re = compiled(p.pattern, p.case_insensitive);
      for (const m of re2Matches(re, safe, config.max_matches - out.length, false)) {
        if (m.end > m.start) out.push({ detector: 'regex', entity: p.entity, start: m.start, end: m.end, score: 1, rule: `pattern-${i}` });
      }
    });
    return out.sort((a, b) => a.start - b.start);
  }),
};
