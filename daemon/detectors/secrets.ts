// Secrets in text: the rule set of secret-rules.ts (gitleaks' rules plus ours), each rule compiled
// once into RE2 and run only around occurrences of its keywords, then filtered as gitleaks filters:
// entropy floor on the secret, a digit for generic rules, allow-lists, stop-words.
import type { RE2 } from 're2-wasm';
import { z } from 'zod';
import { guardRe2, onRe2Exhausted, re2Heap, releaseRe2 } from './re2-heap.js';
import { re2Matches, wellFormed, type Re2Match } from './re2-match.js';
import { lowerSameLength } from './word-automaton.js';
import { KeywordHits, windows } from './secret-windows.js';
import { DROPPED_RULES, GLOBAL_ALLOW, sampleOf, SECRET_RULES } from './secret-rules.js';
import type { AllowTarget, SecretAllowList, SecretRule } from './secret-rule-types.js';
import type { Detector, Finding } from './types.js';
import { dedupe } from './secret-dedupe.js';
import { looksLikeSecret, shannonEntropy } from './secret-randomness.js';
import { caseDestroyed, miscasedPrefixes } from './secret-case.js';
import { decodedViews, recasedView, type SecretView } from './secret-views.js';

export { looksLikeSecret, shannonEntropy } from './secret-randomness.js';

interface CompiledAllow {
  readonly target: AllowTarget;
  readonly regex: RE2 | null;
  readonly stopwords: readonly string[];
}
interface CompiledRule {
  readonly rule: SecretRule;
  /** Finds matches, without submatches. */
  readonly re: RE2;
  /** Splits a match into its groups (null: the secret is the whole match). See secretOf. */
  readonly tail: RE2 | null;
  readonly allow: readonly CompiledAllow[];
}

// The rules share out four re2-wasm heaps of 16 MB (see keywords.ts); ~56 rules, warm and after a
// stress run over varied text, use about a third of one.
const RULES_PER_HEAP = 56;
const heapOf = (i: number): typeof RE2 => re2Heap(1 + Math.floor(i / RULES_PER_HEAP));

/** An allow-list's regexes as one alternation: one RE2 call per candidate instead of one per regex. */
function compileAllow(list: SecretAllowList, Re2: typeof RE2): CompiledAllow {
  const regexes = list.regexes ?? [];
  const regex = regexes.length === 0 ? null : new Re2(regexes.map((r) => `(?:${r})`).join('|'), 'u');
  return { target: list.target ?? 'secret', regex, stopwords: list.stopwords ?? [] };
}

/**
 * RE2 as re2-wasm runs it: a fixed 16 MB heap per instance, and a DFA per pattern whose states grow
 * with the width of counted repeats and with the text seen. Repeats wider than `width` are opened
 * to {m,} (runs longer than gitleaks' upper bound then match too). For finding matches the width is
 * 20, which keeps gitleaks' 20-character gap between a name and its "="; with the bounds as written,
 * a stress run over varied text exhausted the heap. For splitting a match already found into its
 * groups the width is 5: the same split of the same text, at a tenth of the NFA work.
 */
export function relax(source: string, width: number): string {
  return source.replace(/\{(\d+),(\d+)\}/g, (all, m: string, n: string) => (Number(n) - Number(m) > width ? `{${m},}` : all));
}

/** Does the pattern have a capturing group? (Skips escapes and character classes.) */
function capturing(source: string): boolean {
  for (let i = 0, inClass = false; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      inClass = true;
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++;
    } else if (c === '(' && (source[i + 1] !== '?' || source.startsWith('(?P<', i) || source.startsWith('(?<', i))) return true;
  }
  return false;
}

// Compiling the set costs ~4 s of CPU, up to 100 ms a rule: a rule is compiled the first time one
// of its keywords occurs, or ahead of traffic by warmSecretRules() at boot.
let COMPILED: Array<CompiledRule | null | undefined> = new Array(SECRET_RULES.length);
let GLOBAL: CompiledAllow | undefined;
const DROPPED: Array<{ id: string; why: string }> = [...DROPPED_RULES];

function releaseAllow(a: CompiledAllow): void {
  if (a.regex !== null) releaseRe2(a.regex);
}

onRe2Exhausted(() => {
  for (const c of COMPILED)
    if (c !== null && c !== undefined) {
      releaseRe2(c.re);
      if (c.tail !== null) releaseRe2(c.tail);
      c.allow.forEach(releaseAllow);
    }
  if (GLOBAL !== undefined) releaseAllow(GLOBAL);
  COMPILED = new Array(SECRET_RULES.length);
  GLOBAL = undefined;
});

function compiledRule(i: number): CompiledRule | null {
  let c = COMPILED[i];
  if (c !== undefined) return c;
  const rule = SECRET_RULES[i]!;
  try {
    const Re2 = heapOf(i);
    const groups = rule.secretGroup !== 0 && capturing(rule.regex);
    c = {
      rule,
      re: new Re2(relax(rule.regex, 20), 'u'),
      tail: groups ? new Re2(`^(?:${relax(rule.regex, 5)})$`, 'u') : null,
      allow: (rule.allow ?? []).map((a) => compileAllow(a, Re2)),
    };
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    c = null;
    DROPPED.push({ id: rule.id, why: `RE2 refused it: ${err.message}` });
  }
  COMPILED[i] = c;
  return c;
}

export interface SecretRulesReport {
  readonly compiled: number;
  readonly dropped: ReadonlyArray<{ id: string; why: string }>;
}

function report(): SecretRulesReport {
  return { compiled: COMPILED.filter((c) => c !== undefined && c !== null).length, dropped: [...DROPPED] };
}

/**
 * Compiles rule i and runs it once on a string built to match it: RE2 compiles its reverse program
 * and first DFA states on a rule's first match (10-100 ms), which no request should wait for.
 */
function prepare(i: number): void {
  const c = compiledRule(i);
  if (c === null) return;
  const m = re2Matches(c.re, sampleOf(c.rule.regex), 1, false)[0];
  if (m !== undefined) secretOf(c, m.groups[0] ?? '');
}

/** Compiles every rule now; the count compiled and every rule left out, with the reason. */
export function compileSecretRules(): SecretRulesReport {
  guardRe2(() => SECRET_RULES.forEach((_, i) => prepare(i)));
  return report();
}

/** The same, one rule per turn of the event loop, for boot. */
export async function warmSecretRules(signal?: AbortSignal): Promise<SecretRulesReport> {
  for (let i = 0; i < SECRET_RULES.length; i++) {
    if (signal?.aborted) break; // shutting down: what is left compiles on first use
    guardRe2(() => prepare(i));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return report();
}

const KNOWN_IDS = new Set(SECRET_RULES.map((r) => r.id));

const SecretsConfigSchema = z
  .object({
    /** Rule ids (gitleaks' where they come from gitleaks) not to run. */
    disabled_rules: z
      .array(z.string())
      .max(500)
      .default([])
      .refine((ids) => ids.every((id) => KNOWN_IDS.has(id)), { message: 'disabled_rules: unknown rule id' }),
    /** Exact values never reported, e.g. a project's published test key. */
    allow_values: z.array(z.string().min(1).max(4096)).max(1000).default([]),
  })
  .strict();
export type SecretsConfig = z.output<typeof SecretsConfigSchema>;

const DEFAULT_SPAN: readonly [number, number] = [128, 512];
// More findings than this in one text fails the call (fail closed): a cap that only stopped looking
// would let the next secret through, and a policy that masks would leave it in place. Matches a
// rule then rejects (low entropy, placeholders) are not counted: 200 decoys cannot hide a token.
const MAX_FINDINGS = 1000;

/** Thrown when a text holds more secrets than one call reports: the caller fails closed. */
export class TooManySecretsError extends Error {
  constructor() {
    super(`more than ${MAX_FINDINGS} secrets in one text`);
  }
}

interface Candidate {
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
function secretOf(c: CompiledRule, whole: string): { secret: string; offset: number } {
  if (c.tail === null) return { secret: whole, offset: 0 };
  const groups = re2Matches(c.tail, whole, 1)[0]?.groups ?? [whole];
  const group = c.rule.secretGroup ?? groups.findIndex((g, i) => i > 0 && g !== undefined && g !== '');
  const secret = group > 0 ? (groups[group] ?? '') : whole;
  // RE2 reports no group offsets; a secret ends its match save for a closing delimiter, so search from the end.
  return { secret, offset: group > 0 ? Math.max(0, whole.lastIndexOf(secret)) : 0 };
}

function candidate(text: string, from: number, m: Re2Match, c: CompiledRule): Candidate {
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

function accepted(c: Candidate, rule: SecretRule, allowValues: ReadonlySet<string>, lists: readonly CompiledAllow[]): boolean {
  if (c.secret === '' || allowValues.has(c.secret)) return false;
  if (rule.entropy !== undefined) {
    if (shannonEntropy(c.secret) <= rule.entropy) return false;
    if (rule.requireDigit === true && !/\d/.test(c.secret)) return false;
  }
  if (rule.random === true && !looksLikeSecret(c.secret)) return false;
  GLOBAL ??= compileAllow(GLOBAL_ALLOW, heapOf(0));
  return !allowed(c, lists) && !allowed(c, [GLOBAL]);
}

/** Was a finding over a prefix put back in its case flattened beyond repair (secret-case.ts)? */
function flattened(c: CompiledRule, text: string, f: Candidate, recased: ReadonlyArray<readonly [number, number]>): boolean {
  const prefix = recased.find(([at]) => at >= f.start && at < f.end);
  if (prefix === undefined) return false;
  const body = text.slice(prefix[1], f.end);
  if (!caseDestroyed(body)) return false;
  // A one-case alphabet (the rule matches only this case) was not flattened: the other case is the same key.
  const swapped = [...body].map((ch) => (ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase())).join('');
  return re2Matches(c.re, f.match.slice(0, f.match.length - body.length) + swapped, 1, false).length > 0;
}

function scanRule(
  text: string,
  hits: KeywordHits,
  i: number,
  allowValues: ReadonlySet<string>,
  out: Finding[],
  recased?: ReadonlyArray<readonly [number, number]>,
): void {
  const positions = hits.positions(i);
  if (positions !== null && positions.length === 0) return;
  const compiled = compiledRule(i);
  if (compiled === null) return;
  const { rule, re, allow } = compiled;
  const span = rule.span ?? DEFAULT_SPAN;
  // A rule's match lies within its span of a keyword, so a search needs to see little more than that.
  const lookahead = Math.max(1024, 2 * (span[0] + span[1]));
  for (const [from, to] of windows(text, positions, span)) {
    for (const m of re2Matches(re, text.slice(from, to), Number.POSITIVE_INFINITY, false, lookahead)) {
      if (rule.maxMatch !== undefined && m.end - m.start > rule.maxMatch) continue;
      const c = candidate(text, from, m, compiled);
      if (!accepted(c, rule, allowValues, allow)) continue;
      if (recased !== undefined && flattened(compiled, text, c, recased)) continue;
      if (out.length >= MAX_FINDINGS) throw new TooManySecretsError();
      out.push({ detector: 'secrets', entity: rule.entity, start: c.start, end: c.end, score: rule.score, rule: rule.id });
    }
  }
}

interface Scan {
  readonly disabled: ReadonlySet<string>;
  readonly allowValues: ReadonlySet<string>;
}

/** Every rule whose keyword occurs in `text`; with the keyword hits, for the recased view. */
function scanText(
  text: string,
  scan: Scan,
  recased?: ReadonlyArray<readonly [number, number]>,
): { findings: Finding[]; hits: KeywordHits } {
  const hits = new KeywordHits(lowerSameLength(text));
  const out: Finding[] = [];
  for (const i of hits.rulesHit()) {
    const rule = SECRET_RULES[i]!;
    if (scan.disabled.has(rule.id) || rule.mustContain?.test(text) === false) continue;
    scanRule(text, hits, i, scan.allowValues, out, recased);
  }
  return { findings: out, hits };
}

/** Findings of a view, at the spans of the original text they stand for. */
function inOriginal(view: SecretView, findings: readonly Finding[]): Finding[] {
  return findings.map((f) => {
    const [start, end] = view.span(f.start, f.end);
    return { ...f, start, end };
  });
}

/**
 * The text, then what it also reads as (secret-views.ts): without invisible characters and
 * look-alikes, base64 and percent-encoding decoded, vendor prefixes in their own case.
 */
function detectSecrets(text: string, config: SecretsConfig): Finding[] {
  const scan: Scan = { disabled: new Set(config.disabled_rules), allowValues: new Set(config.allow_values) };
  const views: SecretView[] = [{ text, span: (s, e) => [s, e] }, ...decodedViews(text)];
  const out: Finding[] = [];
  for (const view of views) {
    const { findings, hits } = scanText(view.text, scan);
    out.push(...inOriginal(view, findings));
    const recased = recasedView(view.text, miscasedPrefixes(view.text, hits));
    if (recased !== null) out.push(...inOriginal(view, scanText(recased.text, scan, recased.recased).findings));
    if (out.length > MAX_FINDINGS) throw new TooManySecretsError();
  }
  return dedupe(out);
}

export const secretsDetector: Detector<SecretsConfig> = {
  name: 'secrets',
  parseConfig: (config) => SecretsConfigSchema.parse(config ?? {}),
  detect: (text, config) => guardRe2(() => (text.length === 0 ? [] : detectSecrets(wellFormed(text), config))),
};
