// The path and query of a request target, parsed without ever throwing: a target the URL parser
// refuses or reads as naming another host (`//x`, `/\x`, `*`) routes on its raw path, which
// matches no route (404), instead of failing outside the request pipeline.
const BASE = 'http://gateway';

export interface RequestTarget {
  readonly pathname: string;
  readonly searchParams: URLSearchParams;
}

export function parseRequestTarget(raw: string | undefined): RequestTarget {
  const target = raw ?? '/';
  const absolute = /^https?:\/\//i.test(target);
  if (absolute || target.startsWith('/')) {
    try {
      const url = new URL(target, BASE);
      // Absolute form (RFC 9112 3.2.2) names its own host; origin form must stay on ours.
      if (absolute || url.origin === BASE) return { pathname: url.pathname, searchParams: url.searchParams };
    } catch {
      // falls through to the raw path
    }
  }
  const q = target.indexOf('?');
  return { pathname: q < 0 ? target : target.slice(0, q), searchParams: new URLSearchParams(q < 0 ? '' : target.slice(q + 1)) };
}
