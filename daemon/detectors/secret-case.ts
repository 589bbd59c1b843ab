// What a change of case does to a secret. A token is a finding in another case only when the change
// can be undone by whoever receives it: a vendor prefix written in another case ("GHP_" before an
// intact body, "Shpat_"), or a body whose alphabet has one case of letters (hex, base32), which the
// receiver restores by changing the case back. A body of a mixed-case alphabet (base62, base64:
// GitHub, Slack, AWS secret keys) flattened to one case is not the secret any more: about one letter
// in two is wrong and 2^n guesses stand between it and the key. Such text is not reported.
import { SECRET_RULES } from './secret-rules.js';
import type { KeywordHits } from './secret-windows.js';

/** A rule's keyword as its regex writes it, when the regex writes it as a literal case-sensitive prefix. */
function literalCase(regex: string, keyword: string): string | null {
  if (regex.startsWith('(?i)') || keyword.length < 3 || !/[a-z]/.test(keyword)) return null;
  const plain = regex.replace(/\\([.\-$_~])/g, '$1');
  const at = plain.toLowerCase().indexOf(keyword);
  if (at < 0 || plain[at - 1] === '[' || /\(\?i\)/.test(plain.slice(0, at))) return null;
  const written = plain.slice(at, at + keyword.length);
  return written.toLowerCase() === keyword ? written : null;
}

/** Lower-case keyword -> the case of its vendor prefix; a keyword written in two cases by two rules is left out. */
const PREFIX_CASE: ReadonlyMap<string, string> = (() => {
  const seen = new Map<string, string | null>();
  for (const rule of SECRET_RULES) {
    if (rule.generic === true) continue;
    for (const k of rule.keywords) {
      const written = literalCase(rule.regex, k);
      if (written === null) continue;
      const before = seen.get(k);
      seen.set(k, before === undefined || before === written ? written : null);
    }
  }
  return new Map([...seen].filter((e): e is [string, string] => e[1] !== null));
})();

/** Where a vendor prefix occurs in the text in another case than its vendor's: [offset, prefix as written by the vendor]. */
export function miscasedPrefixes(text: string, hits: KeywordHits): Array<{ at: number; prefix: string }> {
  const out: Array<{ at: number; prefix: string }> = [];
  for (const [keyword, positions] of hits.occurrences()) {
    const prefix = PREFIX_CASE.get(keyword);
    if (prefix === undefined || positions === null) continue;
    for (const at of positions) if (text.slice(at, at + prefix.length) !== prefix) out.push({ at, prefix });
  }
  return out;
}

/**
 * Was this token body's case changed beyond repair? Letters outside hex (a base62 or base64 body),
 * all of one case: a random body of a mixed-case alphabet has both, so it was flattened.
 */
export function caseDestroyed(body: string): boolean {
  const letters = body.replace(/[^A-Za-z]/g, '');
  if (letters.length < 8 || !/[g-zG-Z]/.test(letters)) return false;
  return letters === letters.toUpperCase() || letters === letters.toLowerCase();
}
