// One finding per secret: among overlapping findings a vendor rule beats a generic one, and among
// generic ones the rule listed first; the same span found twice (in the text and in a view of it) counts once.
import type { Finding } from './types.js';
import { SECRET_RULES } from './secret-rules.js';

const GENERIC_IDS = new Set(SECRET_RULES.filter((r) => r.generic === true).map((r) => r.id));
const ORDER = new Map(SECRET_RULES.map((r, i) => [r.id, i]));

/** Does finding g make f redundant? Vendor rules beat generic ones; among generic ones, rule order decides. */
function supersedes(g: Finding, f: Finding): boolean {
  if (g === f || g.start >= f.end || f.start >= g.end) return false;
  const gGeneric = GENERIC_IDS.has(g.rule!);
  const fGeneric = GENERIC_IDS.has(f.rule!);
  if (gGeneric !== fGeneric) return fGeneric;
  if (fGeneric) return ORDER.get(g.rule!)! < ORDER.get(f.rule!)!;
  const contains = g.start <= f.start && f.end <= g.end;
  const longer = g.end - g.start > f.end - f.start;
  return contains && g.entity === f.entity && (longer || ORDER.get(g.rule!)! < ORDER.get(f.rule!)!);
}

/** One finding per secret. */
export function dedupe(found: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  const findings = found.filter((f) => {
    const key = `${f.start}:${f.end}:${f.rule}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return findings.filter((f) => !findings.some((g) => supersedes(g, f))).sort((a, b) => a.start - b.start || b.end - a.end);
}
