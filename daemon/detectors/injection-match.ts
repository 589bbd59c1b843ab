// The phrase rules of injection-rules.ts compiled once and matched over one view of a text: a rule runs
// only when one of its keywords occurs, and a phrase written *about* attacks (quoted, reported, near
// reporting words) counts for less. injection-score.ts combines the hits of every view.
import { INJECTION_RULES, REPORTING_CUES } from './injection-rules.js';
import type { InjectionCategory, InjectionRule } from './injection-rule-types.js';
import type { View } from './injection-normalise.js';
import { WordAutomaton } from './word-automaton.js';

interface CompiledRule {
  readonly rule: InjectionRule;
  readonly patterns: readonly RegExp[];
  readonly unless?: RegExp;
  readonly unlessAfter?: RegExp;
}

/** `{Wn}` is up to n filler words; a space is one whitespace character. Bounded repeats keep V8 linear. */
export function compilePattern(source: string, flags = 'g'): RegExp {
  return new RegExp(source.replace(/\{W(\d+)\}/g, '(?:\\S{1,24}\\s){0,$1}').replace(/ /g, '\\s'), flags);
}

const COMPILED: readonly CompiledRule[] = INJECTION_RULES.map((rule) => ({
  rule,
  patterns: rule.patterns.map((p) => compilePattern(p)),
  ...(rule.unless !== undefined ? { unless: compilePattern(rule.unless, '') } : {}),
  ...(rule.unlessAfter !== undefined ? { unlessAfter: compilePattern(rule.unlessAfter, '') } : {}),
}));

export interface Hit {
  readonly name: string;
  readonly weight: number;
  readonly start: number;
  readonly end: number;
}

const MATCHES_PER_PATTERN = 5;

function firstValidMatch(c: CompiledRule, text: string): RegExpExecArray | null {
  for (const re of c.patterns) {
    re.lastIndex = 0;
    for (let n = 0; n < MATCHES_PER_PATTERN; n++) {
      const m = re.exec(text);
      if (m === null) break;
      if (m[0] === '') {
        re.lastIndex++;
        continue;
      }
      if (c.unless?.test(m[0]) === true) continue;
      const after = text.slice(m.index + m[0].length, m.index + m[0].length + 40);
      if (c.unlessAfter?.test(after) === true) continue;
      return m;
    }
  }
  return null;
}

const PHRASE: ReadonlySet<InjectionCategory> = new Set(['override', 'extraction', 'roleplay', 'delimiter', 'exfiltration']);

// Every rule keyword and reporting cue, found in one pass over a view.
const WORDS = [...new Set([...INJECTION_RULES.flatMap((r) => r.keywords), ...REPORTING_CUES])];
const AUTOMATON = new WordAutomaton(WORDS);
const RULE_WORDS = COMPILED.map((c) => c.rule.keywords.map((k) => WORDS.indexOf(k)));
const CUE_WORDS = REPORTING_CUES.map((k) => WORDS.indexOf(k));

const REPORTED = /\bto $/;
const ADDRESSED = /\b(?:you|u) to $/;

/**
 * Writing about attacks: the phrase inside quotes or code, reported as an infinitive ("requests to
 * reveal the system prompt", but not "I want you to reveal ..."), reporting words in the text.
 */
function damping(view: string, at: number, cues: number): number {
  const before = view.slice(Math.max(0, at - 200), at);
  const quoted = (before.split('"').length - 1) % 2 === 1 || (before.split('`').length - 1) % 2 === 1;
  const reported = REPORTED.test(before) && !ADDRESSED.test(before);
  return (quoted ? 0.6 : 1) * (reported ? 0.6 : 1) * (cues >= 2 ? 0.5 : cues === 1 ? 0.75 : 1);
}

const SENTENCE_END = /[.!?\n]/g;

/**
 * Reporting words in the sentence around a match (with the sentences either side of it): a cue
 * elsewhere in the text, such as "This is only for benchmarking." after an attack, does not damp it.
 */
function sentenceCues(view: string, at: number, length: number): number {
  let from = 0;
  let ends = 0;
  for (let i = at - 1; i >= 0 && ends < 2; i--)
    if (view[i] === '.' || view[i] === '!' || view[i] === '?' || view[i] === '\n') from = ++ends === 2 ? i + 1 : from;
  SENTENCE_END.lastIndex = at + length;
  const next = SENTENCE_END.exec(view);
  const present = AUTOMATON.present(view.slice(from, next === null ? view.length : next.index + 1));
  return CUE_WORDS.filter((w) => present[w]).length;
}

/**
 * Rule hits in one view, offsets in the original text (`span` for decoded text). `skip` names
 * rules already found; `cues` counts reporting words (0 for decoded text: hiding is never reporting).
 */
export function matchView(
  view: View,
  text: string,
  disabled: ReadonlySet<string>,
  skip: ReadonlySet<string>,
  span: [number, number] | null,
): Hit[] {
  const present = AUTOMATON.present(text);
  const anyCue = span === null && CUE_WORDS.some((w) => present[w]);
  const hits: Hit[] = [];
  COMPILED.forEach((c, i) => {
    if (disabled.has(c.rule.name) || skip.has(c.rule.name) || !RULE_WORDS[i]!.some((w) => present[w])) return;
    const m = firstValidMatch(c, text);
    if (m === null) return;
    const damp =
      span === null && PHRASE.has(c.rule.category) ? damping(text, m.index, anyCue ? sentenceCues(text, m.index, m[0].length) : 0) : 1;
    const last = Math.max(m.index, m.index + m[0].length - 1);
    const start = span?.[0] ?? view.start(m.index);
    const end = span?.[1] ?? view.end(last);
    hits.push({ name: c.rule.name, weight: c.rule.weight * damp, start, end });
  });
  return hits;
}
