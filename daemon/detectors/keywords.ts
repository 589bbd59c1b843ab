// A policy's own words and patterns. 'keywords': case-insensitive, whole words by default, all
// words found in one pass (word-automaton.ts). 'regex': user patterns run by RE2 (re2-wasm), whose
// matching time is linear in the text whatever the pattern, so no pattern a policy author writes
// can stall the daemon (re2-heap.ts, re2-match.ts).
import { RE2 } from 're2-wasm';
import { z } from 'zod';
import { guardRe2, onRe2Exhausted, releaseRe2 } from './re2-heap.js';
import { re2Matches, wellFormed } from './re2-match.js';
import type { Detector, Finding } from './types.js';
import { lowerSameLength, WordAutomaton } from './word-automaton.js';

export const MAX_PATTERNS = 32;
export const MAX_PATTERN_LENGTH = 512;
export const MAX_WORDS = 1000;
export const MAX_WORD_CHARS = 20_000;
export const MAX_MATCHES = 1000;

const ENTITY = z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/, 'entity: upper snake case, at most 64 characters');
const MATCH_CAP = z.number().int().min(1).max(MAX_MATCHES).default(100);

// ---- keywords ----

const KeywordsConfigSchema = z
  .object({
    words: z
      .array(z.string().trim().min(1).max(200))
      .min(1)
      .max(MAX_WORDS)
      .refine((words) => words.reduce((n, w) => n + w.length, 0) <= MAX_WORD_CHARS, {
        message: `words: at most ${MAX_WORD_CHARS} characters in all`,
      }),
    whole_word: z.boolean().default(true),
    entity: ENTITY.default('CUSTOM_KEYWORD'),
    max_matches: MATCH_CAP,
  })
  .strict();
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

const PatternSchema = z
  .object({
    pattern: z.string().min(1).max(MAX_PATTERN_LENGTH),
    entity: ENTITY.default('CUSTOM_REGEX'),
    case_insensitive: z.boolean().default(false),
  })
  .strict();

const RegexConfigSchema = z
  .object({
    patterns: z.array(PatternSchema).min(1).max(MAX_PATTERNS),
    max_matches: MATCH_CAP,
  })
  .strict()
  .superRefine((config, ctx) => {
    config.patterns.forEach((p, i) => {
      const problem = patternProblem(p.pattern, p.case_insensitive);
      if (problem !== null) ctx.addIssue({ code: 'custom', path: ['patterns', i, 'pattern'], message: problem });
    });
  });
export type RegexConfig = z.output<typeof RegexConfigSchema>;

export const regexDetector: Detector<RegexConfig> = {
  name: 'regex',
  parseConfig: (config) => guardRe2(() => RegexConfigSchema.parse(config)),
  detect: (text, config) =>
    guardRe2(() => {
      const safe = wellFormed(text);
      const out: Finding[] = [];
      config.patterns.forEach((p, i) => {
        const re = compiled(p.pattern, p.case_insensitive);
        for (const m of re2Matches(re, safe, config.max_matches - out.length, false)) {
          if (m.end > m.start)
            out.push({ detector: 'regex', entity: p.entity, start: m.start, end: m.end, score: 1, rule: `pattern-${i}` });
        }
      });
      return out.sort((a, b) => a.start - b.start);
    }),
};
