// Whether a URL in a tool's text or schema is an exfiltration risk (the scan's exfiltration_url
// heuristic, poisoning.ts): a host that catches requests, credentials in it, a raw IP address, a
// placeholder or query key that waits for data, plain http to a non-loopback host, or any real URL
// as the default of a destination-like parameter. RFC 2606 example domains never are. Pure.
import * as R from './poisoning-rules.js';

const PLACEHOLDER =
  /\{\{\s*([^{}\s]{1,40})\s*\}\}|\$\{([^{}]{1,40})\}|\{([^{}\s]{1,40})\}|<([^<>\s]{1,40})>|%([A-Za-z_]{1,40})%|\$([A-Z][A-Z0-9_]{1,40})\b|\[([A-Z][A-Z0-9_]{1,40})\]/gu;

/** An identifier or phrase split into lower-case words (camelCase and separators). */
export const words = (s: string): string[] =>
  s
    .replace(/([a-z0-9])([A-Z])/gu, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/u)
    .filter((w) => w !== '');
/** `host` is one of `list` or below one of them. */
export const hostIn = (host: string, list: readonly string[]): boolean => list.some((d) => host === d || host.endsWith(`.${d}`));

const isLoopback = (host: string): boolean =>
  host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/u.test(host) || host === '[::1]';
const isIpLiteral = (host: string): boolean => /^\d+\.\d+\.\d+\.\d+$/u.test(host) || host.startsWith('[');

function dataPlaceholder(raw: string): string | null {
  let decoded = raw;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    /* keep the raw form */
  }
  for (const m of decoded.matchAll(PLACEHOLDER)) {
    const name = m.slice(1).find((g) => g !== undefined) ?? '';
    const ws = words(name);
    if (ws.some((w) => R.DATA_WORDS.has(w)) && !ws.some((w) => R.IDENTIFIER_WORDS.has(w))) return `placeholder "${m[0]}" looks like data`;
  }
  return null;
}

function dataQuery(url: URL): string | null {
  for (const [key, value] of url.searchParams) {
    const looksData = words(key).some((w) => R.DATA_WORDS.has(w));
    const placeholderValue = value === '' || /^[A-Z][A-Z0-9_]{2,}$/u.test(value) || /^[{<[$%]/u.test(value);
    if (looksData && placeholderValue) return `query parameter "${key}" waits for data`;
  }
  return null;
}

/** Why a URL is an exfiltration risk, or null. `destination` names the parameter whose default it is, if any. */
export function urlRisk(raw: string, destination: string | null): string | null {
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    /* a template host, say: only the text checks apply */
  }
  if (!url) return dataPlaceholder(raw);
  const host = url.hostname.toLowerCase();
  if (hostIn(host, R.RESERVED_DOMAINS)) return null;
  const hostPath = `${host}${url.pathname}`;
  if (hostIn(host, R.CAPTURE_HOSTS) || R.CAPTURE_PATHS.some((p) => hostPath.startsWith(p))) return `host ${host} catches requests`;
  const loopback = isLoopback(host);
  if (url.username || url.password) return 'credentials embedded in the URL';
  if (isIpLiteral(host) && !loopback) return `raw IP address host ${host}`;
  const data = dataPlaceholder(raw) ?? dataQuery(url);
  if (data) return data;
  if (loopback) return null;
  if (url.protocol !== 'https:' && url.protocol !== 'wss:') return `plaintext ${url.protocol.slice(0, -1)} to ${host}`;
  if (destination) return `default of destination parameter "${destination}"`;
  return null;
}
