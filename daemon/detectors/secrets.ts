// Secrets in text: the rule set of secret-rules.ts (gitleaks' rules plus ours), each rule compiled
// once into RE2 and run only around occurrences of its keywords, then filtered as gitleaks filters:
// entropy floor on the secret, a digit for generic rules, allow-lists, stop-words.
// Compiling is secret-compile.ts's, warming up secret-warm.ts's, judging a match secret-candidates.ts's.
import { z } from 'zod';
import { guardRe2 } from './re2-heap.js';
import { re2Matches, wellFormed } from './re2-match.js';
import { lowerSameLength } from './word-automaton.js';
import { KeywordHits, windows } from './secret-windows.js';
import { SECRET_RULES } from './secret-rules.js';
import type { Detector, Finding } from './types.js';
import { dedupe } from './secret-dedupe.js';
import { miscasedPrefixes } from './secret-case.js';
import { decodedViews, recasedView, type SecretView } from './secret-views.js';
import { compiledRule } from './secret-compile.js';
import { accepted, candidate, flattened } from './secret-candidates.js';

export { looksLikeSecret, shannonEntropy } from './secret-randomness.js';

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
