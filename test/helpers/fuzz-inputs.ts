// The classes of malformed input the route fuzz (test/api/routes.fuzz.test.ts) sends to every
// route, as seeded generators: headers a route does not expect or that come twice, content
// encodings, bytes that are not UTF-8 in every kind of field, repeated, empty and huge query
// parameters, and huge object keys. Each names what the gateway must answer, where that is fixed.
import zlib from 'node:zlib';

export type Rand = () => number;

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
export function prng(seed: number): Rand {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
export const chance = (r: Rand, p: number): boolean => r() < p;

/** Headers some route reads (the MCP proxy, the webhook) or HTTP defines, each with odd values. */
export const UNEXPECTED_HEADERS: Readonly<Record<string, readonly string[]>> = {
  'mcp-session-id': ['x', '', 'a'.repeat(300), '\u00e9\u00ff'],
  'mcp-protocol-version': ['2025-06-18', '2026-07-28', 'x', ''],
  'mcp-method': ['tools/call', 'x'.repeat(2000), ''],
  'mcp-name': ['get_weather', '=?base64?!!?=', ''],
  'mcp-param-city': ['x'],
  'last-event-id': ['1', 'x'.repeat(500)],
  'x-agent-id': ['a', '', 'x'.repeat(300)],
  'x-gateway-approval-id': ['x', '', '00000000-0000-0000-0000-000000000000'],
  'x-gateway-wait': ['1', '-1', '1e999', 'x', ''],
  'x-gateway-environment': ['prod', '', '!!', 'x'.repeat(100)],
  'idempotency-key': ['k', '', 'a'.repeat(300), '\u00e9'],
  range: ['bytes=0-1', 'x'],
  'if-none-match': ['*'],
  'if-match': ['"x"'],
  cookie: ['a=b', 'x'.repeat(3000)],
  forwarded: ['for=1.2.3.4;host=evil'],
  'x-forwarded-for': ['1.2.3.4', 'x'],
  'x-forwarded-host': ['evil.example'],
  'x-http-method-override': ['DELETE'],
  'accept-encoding': ['gzip, br', 'x'],
  'content-language': ['de', ''],
  'content-md5': ['x'],
  'content-range': ['bytes 0-1/2'],
  accept: ['text/event-stream', 'text/html', ''],
};

/** Every unexpected header at once, with the value `which` picks. */
export function unexpectedHeaders(which: (values: readonly string[]) => string): Record<string, string> {
  return Object.fromEntries(Object.entries(UNEXPECTED_HEADERS).map(([name, values]) => [name, which(values)]));
}

/** Headers sent twice on the wire (fetch would join them: these go over a raw socket). */
export const REPEATED_HEADERS: readonly string[] = [
  'Content-Type: application/json',
  'Content-Type: text/plain',
  'X-Request-Id: fuzz-repeated-0001',
  'X-Request-Id: fuzz-repeated-0002',
  'Mcp-Session-Id: a',
  'Mcp-Session-Id: b',
  'Idempotency-Key: a',
  'Idempotency-Key: b',
  'Accept-Language: de',
  'Accept-Language: fr',
  'X-Agent-Id: a',
  'X-Agent-Id: b',
  'X-Gateway-Environment: prod',
  'X-Gateway-Environment: dev',
  'Content-Encoding: identity',
  'Content-Encoding: identity',
];

/** Encodings no route takes (415), and identity, which every route takes. */
export const CONTENT_ENCODINGS = ['gzip', 'deflate', 'br', 'x-unknown', 'GZIP', 'compress', 'gzip, identity', 'identity'] as const;

/** The body as that encoding would carry it (real compression where Node has it). */
export function encodedBody(encoding: string, body: string): Buffer {
  const bytes = Buffer.from(body);
  switch (encoding.toLowerCase()) {
    case 'gzip':
      return zlib.gzipSync(bytes);
    case 'deflate':
      return zlib.deflateSync(bytes);
    case 'br':
      return zlib.brotliCompressSync(bytes);
    default:
      return bytes;
  }
}

/** Byte sequences that are not UTF-8: overlong forms, an encoded surrogate, stray and cut-off bytes. */
export const INVALID_UTF8: readonly (readonly number[])[] = [
  [0xe0, 0x80, 0xaf],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xff],
  [0x80],
  [0xc3],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
];

const MARK = '\u0001MARK\u0001';

/** Where in a JSON body the bytes go: a string value, an object key, an array element, nested. */
export const UTF8_PLACES = ['value', 'key', 'element', 'nested value', 'nested key'] as const;
export type Utf8Place = (typeof UTF8_PLACES)[number];

/**
 * A body that is `good` with invalid UTF-8 at `place`: inside a field's string when the body has
 * one (so the bytes sit where the route reads text), else in a field of its own.
 */
export function withInvalidUtf8(good: Record<string, unknown>, place: Utf8Place, bytes: readonly number[]): Buffer {
  const body: Record<string, unknown> = structuredClone(good);
  const text = Object.keys(body).find((k) => typeof body[k] === 'string') ?? 'fuzz';
  switch (place) {
    case 'value':
      body[text] = MARK;
      break;
    case 'key':
      body[MARK] = 'x';
      break;
    case 'element':
      body.fuzz = ['a', MARK];
      break;
    case 'nested value':
      body.fuzz = { inner: MARK };
      break;
    case 'nested key':
      body.fuzz = { [MARK]: 1 };
      break;
  }
  const [before, after] = JSON.stringify(body).split(JSON.stringify(MARK)) as [string, string];
  return Buffer.concat([Buffer.from(`${before}"a`), Buffer.from(bytes), Buffer.from(`b"${after}`)]);
}

/** Query strings that give a name twice, empty, huge, or in bytes that are not UTF-8. */
export function malformedQueries(names: readonly string[]): string[] {
  const out: string[] = [];
  for (const n of names) {
    out.push(`?${n}=a&${n}=b`, `?${n}=&${n}=`, `?${n}=1&${n}=&limit=1e9&${n}=2`, `?${n}=%e0%80%af`, `?${n}=${'9'.repeat(400)}`);
  }
  out.push(`?%e0%80%af=1`, `?${Array.from({ length: 500 }, (_, i) => `p${i}=${i}`).join('&')}`, `?x=${'x'.repeat(8000)}`, '?=&=&&');
  return out;
}

/** A body whose object key is `size` characters long, at the top or inside a field. */
export function hugeKeyBody(good: Record<string, unknown>, size: number, nested: boolean): string {
  const key = 'k'.repeat(size);
  return JSON.stringify(nested ? { ...good, fuzz: { [key]: 1 } } : { [key]: 1, ...good });
}
