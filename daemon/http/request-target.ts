// The path and query of a request target, parsed without ever throwing: a target the URL parser
// refuses or reads as naming another host (`//x`, `/\x`, `*`) routes on its raw path, which
// matches no route (404), instead of failing outside the request pipeline.
const BASE = 'http://gateway';

// A path of plain segments (letters, digits, `-`, `_`) and no query: what the URL parser would
// return unchanged (nothing to normalise, encode or resolve), so it is taken as it is. Most API
// and proxy requests are of this form; anything else goes through the parser.
const PLAIN_PATH = /^(?:\/[A-Za-z0-9_-]+)+\/?$|^\/$/;

export interface RequestTarget {
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
  /** The query as sent, without its `?` (URLSearchParams decodes bytes that are not UTF-8 to U+FFFD: url-input.ts checks this). */
  readonly rawQuery: string;
}

export function parseRequestTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? '/';
  if (PLAIN_PATH.test(target)) return { pathname: target, searchParams: new URLSearchParams(), rawQuery: '' };
  const absolute = /^https?:\/\//i.test(target);
  if (absolute || target.startsWith('/')) {
    try {
      const url = new URL(target, BASE);
      // Absolute form (RFC 9112 3.2.2) names its own host; origin form must stay on ours.
      if (absolute || url.origin === BASE) return { pathname: url.pathname, searchParams: url.searchParams, rawQuery: url.search.slice(1) };
    } catch {
      // falls through to the raw path
    }
  }
  const q = target.indexOf('?');
  const rawQuery = q < 0 ? '' : target.slice(q + 1);
  return { pathname: q < 0 ? target : target.slice(0, q), searchParams: new URLSearchParams(rawQuery), rawQuery };
}
