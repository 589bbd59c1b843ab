// A match of a secret rule as a candidate finding: the secret inside it, and whether it passes as
// gitleaks filters (entropy floor, a digit for generic rules, allow-lists, stop-words) and, for a
// prefix put back in its case, whether that case was flattened beyond repair.
import { re2Matches, type Re2Match } from './re2-match.js';
import type { SecretRule } from './secret-rule-types.js';
import { globalAllow, type CompiledAllow, type CompiledRule } from './secret-compile.js';
import { looksLikeSecret, shannonEntropy } from './secret-randomness.js';
import { caseDestroyed } from './secret-case.js';

export interface Candidate {
  readonly start: number;
  readonly end: number;
  readonly secret: string;
  readonly match: string;
  /** The line holding the match, cut when an allow-list asks (a long line is costly to cut for every match). */
  line(): string;
}

/**
 * The secret inside a match: the rule's group, else the first group that took part, else the match.
 * Matches are found without submatches (RE2's engine for those takes ~1 ms on the larger gitleaks
 * patterns); a match's groups come from the tail pattern, anchored to the matched text alone.
 */
export function secretOf(c: CompiledRule, whole: string): { secret: string; offset: number } {
  if (c.tail === null) return { secret: whole, offset: 0 };
  const groups = re2Matches(c.tail, whole, 1)[0]?.groups ?? [whole];
  const group = c.rule.secretGroup ?? groups.findIndex((g, i) => i > 0 && g !== undefined && g !== '');
  const secret = group > 0 ? (groups[group] ?? '') : whole;
  // RE2 reports no group offsets; a secret ends its match save for a closing delimiter, so search from the end.
  return { secret, offset: group > 0 ? Math.max(0, whole.lastIndexOf(secret)) : 0 };
}

export function candidate(text: string, from: number, m: Re2Match, c: CompiledRule): Candidate {
  const whole = m.groups[0] ?? '';
  const { secret, offset } = secretOf(c, whole);
  const start = from + m.start + offset;
  const line = (): string => {
    const lineStart = text.lastIndexOf('\n', from + m.start - 1) + 1;
    const lineEnd = text.indexOf('\n', from + m.end);
    return text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
  };
  return { start, end: start + secret.length, secret, match: whole, line };
}

function allowed(c: Candidate, lists: readonly CompiledAllow[]): boolean {
  const lower = c.secret.toLowerCase();
  if (lists.some((list) => list.stopwords.some((w) => lower.includes(w)))) return true;
  return lists.some((list) => list.regex?.test(list.target === 'match' ? c.match : list.target === 'line' ? c.line() : c.secret) === true);
}

export function accepted(c: Candidate, rule: SecretRule, allowValues: ReadonlySet<string>, lists: readonly CompiledAllow[]): boolean {
  if (c.secret === '' || allowValues.has(c.secret)) return false;
  if (rule.entropy !== undefined) {
    if (shannonEntropy(c.secret) <= rule.entropy) return false;
    if (rule.requireDigit === true && !/\d/.test(c.secret)) return false;
  }
  if (rule.random === true && !looksLikeSecret(c.secret)) return false;
  const global = globalAllow();
  return !allowed(c, lists) && !allowed(c, [global]);
}

/** Was a finding over a prefix put back in its case flattened beyond repair (secret-case.ts)? */
export function flattened(c: CompiledRule, text: string, f: Candidate, recased: ReadonlyArray<readonly [number, number]>): boolean {
  const prefix = recased.find(([at]) => at >= f.start && at < f.end);
  if (prefix === undefined) return false;
  const body = text.slice(prefix[1], f.end);
  if (!caseDestroyed(body)) return false;
  // A one-case alphabet (the rule matches only this case) was not flattened: the other case is the same key.
  const swapped = [...body].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join('');
  return re2Matches(c.re, f.match.slice(0, f.match.length - body.length) + swapped, 1, false).length > 0;
}
