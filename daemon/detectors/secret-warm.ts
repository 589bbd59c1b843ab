// Warming the secret rules up ahead of traffic: each compiled and run once on a string built to
// match it, all at once (compileSecretRules) or one per turn of the event loop at boot (warmSecretRules).
import { guardRe2 } from './re2-heap.js';
import { re2Matches } from './re2-match.js';
import { sampleOf } from './re2-sample.js';
import { SECRET_RULES } from './secret-rules.js';
import { compiledRule, rulesReport, type SecretRulesReport } from './secret-compile.js';
import { secretOf } from './secret-candidates.js';

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
  return rulesReport();
}

/** The same, one rule per turn of the event loop, for boot. */
export async function warmSecretRules(signal?: AbortSignal): Promise<SecretRulesReport> {
  for (let i = 0; i < SECRET_RULES.length; i++) {
    if (signal?.aborted) break; // shutting down: what is left compiles on first use
    guardRe2(() => prepare(i));
    await new Promise((resolve) => setImmediate(resolve));
  }
  return rulesReport();
}
