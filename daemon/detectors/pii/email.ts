// E-mail addresses: found by walking out from each '@' (no regex over the whole text, so no
// backtracking), validated by validator's isEmail. Addresses at the reserved names of RFC 2606
// (example.com/.net/.org and below, *.example, *.test, *.invalid, *.localhost) are not personal
// data and pass; so do SSH remotes (git@github.com:org/repo.git) and URL user-info.
import validator from 'validator';
import type { Candidate } from './shared.js';

const LOCAL_CHAR = /[\p{L}\p{N}._%+-]/u;
const DOMAIN_CHAR = /[\p{L}\p{N}.-]/u;
const RESERVED_SLD = ['example.com', 'example.net', 'example.org'];
const RESERVED_TLD = new Set(['example', 'test', 'invalid', 'localhost']);

export function isReservedDomain(domain: string): boolean {
  const d = domain.toLowerCase();
  if (RESERVED_TLD.has(d.slice(d.lastIndexOf('.') + 1))) return true;
  return RESERVED_SLD.some((r) => d === r || d.endsWith('.' + r));
}

export function findEmails(text: string): Candidate[] {
  const out: Candidate[] = [];
  for (let at = text.indexOf('@'); at >= 0; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < 64 && LOCAL_CHAR.test(text[start - 1]!)) start--;
    while (start < at && text[start] === '.') start++;
    let end = at + 1;
    while (end < text.length && end - at <= 253 && DOMAIN_CHAR.test(text[end]!)) end++;
    while (end > at + 1 && (text[end - 1] === '.' || text[end - 1] === '-')) end--;
    if (start === at || end === at + 1) continue;
    if (isSshRemote(text, start, end)) continue;
    const address = text.slice(start, end);
    if (!validator.isEmail(address)) continue;
    if (isReservedDomain(text.slice(at + 1, end))) continue;
    out.push({ entity: 'EMAIL', start, end, score: 0.95, rule: 'email' });
  }
  return out;
}

const URL_USERINFO = /:\/\/[^\s/?#@]{0,128}$/;

/** git@host:owner/repo, ssh://git@host and scheme://user:pass@host name a login on a server, not a mailbox. */
function isSshRemote(text: string, start: number, end: number): boolean {
  if (text[end] === ':' && /[\w~/]/.test(text[end + 1] ?? '')) return true;
  return URL_USERINFO.test(text.slice(Math.max(0, start - 136), start));
}
