// A seeded, bounded fuzz over every route of the route table (issue 15, item 7; issue 24, item 3):
// malformed path parameters, query strings, headers and bodies, with admin credentials, other roles
// and none, and raw-socket requests the HTTP parser refuses. First every route gets each class of
// malformed input once (headers it does not expect or that come twice, content encodings, bytes
// that are not UTF-8 in every kind of field, repeated, empty and huge query parameters, huge keys:
// test/helpers/fuzz-inputs.ts), with the exact refusal where one is fixed and nothing written; then
// the random part mixes them all. It asserts no 5xx, and on every 4xx the error object whose
// request_id is the X-Request-Id header and whose message stays short. The seed is printed;
// GATEWAY_FUZZ_SEED replays one, GATEWAY_FUZZ_REQUESTS changes the count.
import t, { type Test } from 'tap';
import type { Route } from '../../daemon/http/types.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { SAMPLE_TOOLS, startLegacyMcpServer } from '../helpers/mcp-servers.js';
import {
  CONTENT_ENCODINGS,
  INVALID_UTF8,
  REPEATED_HEADERS,
  UNEXPECTED_HEADERS,
  UTF8_PLACES,
  chance,
  encodedBody,
  hugeKeyBody,
  malformedQueries,
  pick,
  prng,
  unexpectedHeaders,
  withInvalidUtf8,
  type Rand,
} from '../helpers/fuzz-inputs.js';
import { parseRaw, rawExchange } from '../helpers/raw-http.js';
import { rowCounts } from '../helpers/row-counts.js';

const SEED = Number(process.env.GATEWAY_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
const REQUESTS = Number(process.env.GATEWAY_FUZZ_REQUESTS ?? 1500);
const RAW_REQUESTS = 60;
const CONCURRENCY = 6;
const TIME_BOUND_MS = 45_000;
/** The longest error message any refusal may carry: a message quotes input only as a short prefix. */
const MESSAGE_MAX_CHARS = 2048;

/** Ids that exist, per parameter name, so that some requests get past the lookup to the deeper checks. */
interface Pool {
  [param: string]: string[];
}

const BAD_IDS = [
  '%00',
  'x%00',
  'x%00y',
  '%ff',
  '%ed%a0%80',
  '%f0%9f%98%80',
  '%e2%80%ae',
  '%2F',
  '%2e%2e',
  '..',
  'a'.repeat(201),
  'a'.repeat(5000),
  '%20',
  '%0a',
  '%7B%7D',
  'null',
  'undefined',
  '-1',
  '0',
  '1e999',
  'NaN',
  '__proto__',
  'constructor',
  '%25',
  '%',
  '%zz',
  '%C0%80',
  '%E0%80%80',
  '\u00e9',
  '\u{1F600}',
];

function pathOf(r: Rand, route: Route, pool: Pool): string {
  return route.path.replace(/:([a-z_]+)/g, (_, name: string) => {
    const real = pool[name] ?? [];
    if (real.length > 0 && chance(r, 0.5)) {
      const id = pick(r, real);
      return chance(r, 0.7) ? id : pick(r, [`${id}%00`, `${id}x`, id.toUpperCase(), `${id}%20`, encodeURIComponent(`${id}\u{1F600}`)]);
    }
    return pick(r, BAD_IDS);
  });
}

const QUERY_NAMES = [
  'limit',
  'cursor',
  'status',
  'agent_id',
  'risk_classification',
  'range',
  'q',
  'from',
  'to',
  'environment',
  'env',
  'id',
  'decision',
  'offset',
  'format',
  'frontable',
  'tier',
  'x',
];
const QUERY_VALUES = [
  '1',
  '0',
  '-1',
  '1000',
  '1001',
  '1e999',
  '-1e999',
  'NaN',
  'true',
  '',
  '%00',
  'a%00b',
  '%ff',
  '%ed%a0%80',
  'a'.repeat(300),
  '[]',
  '{}',
  '%F0%9F%98%80',
  '2020-13-45',
  'ALL',
];

/** The query parameters a route declares (its zod object's keys), or none. */
function declaredQuery(route: Route): string[] {
  const shape = (route.query as { shape?: Record<string, unknown> } | undefined)?.shape;
  return shape ? Object.keys(shape) : [];
}

function queryOf(r: Rand, route: Route): string {
  if (chance(r, 0.5)) return '';
  if (chance(r, 0.15)) return pick(r, malformedQueries([...declaredQuery(route), pick(r, QUERY_NAMES)]));
  const parts: string[] = [];
  const n = 1 + Math.floor(r() * 3);
  for (let i = 0; i < n; i += 1) {
    const name = chance(r, 0.9) ? pick(r, QUERY_NAMES) : pick(r, ['%00', '%ff', '', '=', '&&']);
    parts.push(chance(r, 0.1) ? name : `${name}=${pick(r, QUERY_VALUES)}`);
  }
  return '?' + parts.join('&');
}

const FIELDS = [
  'name',
  'role',
  'user_id',
  'server_url',
  'description',
  'auth_method',
  'auth_config',
  'is_proxied',
  'connector_type',
  'action',
  'reason',
  'prompt',
  'metadata',
  'context',
  'attachments',
  'structured_input',
  'approved',
  'comment',
  'tools',
  'detector',
  'config',
  'action_config',
  'scope',
  'enabled',
  'event_type',
  'source',
  'event_id',
  'detail',
  'jsonrpc',
  'method',
  'params',
  'id',
  'audit_detail_level',
  'retention_days',
  'rate_limit_per_minute',
  'justification',
  'trace_id',
  'fields',
  'mcp_tool_id',
  'agent_id',
  'template_id',
  'status',
  'capability_model',
  'permitted_tools',
];

function randomValue(r: Rand, depth = 0): unknown {
  const kind = Math.floor(r() * (depth > 3 ? 8 : 11));
  switch (kind) {
    case 0:
      return pick(r, [
        '',
        'x',
        'true',
        'admin',
        'ALLOW',
        'DENY',
        'http://127.0.0.1:1/mcp',
        'https://example.com',
        'tools/list',
        'a\u0000b',
        '\ud800',
        '\u{1F600}',
        'a'.repeat(3000),
        ' ',
      ]);
    case 1:
      return pick(r, [0, -1, 1, 1.5, 2 ** 53, -(2 ** 63), 1e308, -0]);
    case 2:
      return pick(r, [true, false]);
    case 3:
      return null;
    case 4:
      return pick(r, ['viewer', 'editor', 'admin', 'VIEWER', 'owner']);
    case 5:
      return pick(r, ['2.0', 'initialize', 'tools/call', 'notifications/initialized']);
    case 6:
      return pick(r, ['BLOCK', 'FLAG', 'pii', 'regex', 'minimal', 'full', 'approve', 'PENDING_APPROVAL']);
    case 7:
      return pick(r, [[], {}, [1], { a: 1 }]);
    case 8:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
    default:
      return objectOf(r, depth + 1);
  }
}

function objectOf(r: Rand, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(r() * 5);
  for (let i = 0; i < n; i += 1)
    out[chance(r, 0.9) ? pick(r, FIELDS) : pick(r, ['', '__proto__', 'constructor', 'k\u0000', '\ud800'])] = randomValue(r, depth);
  return out;
}

/**
 * Bodies that pass validation on the main write routes, so that a mutation of one field reaches the
 * code behind the schema. Routes not named here get random bodies only; every route is fuzzed.
 */
const GOOD_BODIES: Record<string, Record<string, unknown>> = {
  'POST /api/v1/verify': { prompt: 'hello', metadata: { agent_id: 'a', environment: 'prod' } },
  'POST /api/v1/webhooks/ingest': { event_type: 'prompt.sent', source: 'browser', detail: { url: 'https://example.com' } },
  'POST /api/v1/mcp/servers': { name: 'fuzz server', server_url: 'https://mcp.example.com/mcp' },
  'PATCH /api/v1/mcp/servers/:id': { description: 'd' },
  'POST /api/v1/agents': { name: 'agent', metadata: { team: 'x' } },
  'PATCH /api/v1/agents/:id': { description: 'd' },
  'POST /api/v1/keys': { name: 'k', role: 'viewer' },
  'POST /api/v1/extensions': { name: 'e' },
  'PATCH /api/v1/project': { name: 'default' },
  'POST /api/v1/verify/policies': { name: 'p', detector: 'keywords', action: 'FLAG', config: { words: ['x'] } },
  'POST /api/v1/mcp/policies': { action: 'DENY', agent_id: 'a' },
  'POST /api/v1/mcp/content-policies': { direction: 'arguments', detector: 'pii', action: 'FLAG' },
  'PATCH /api/v1/mcp/content-policies/:id': { action: 'BLOCK' },
  'POST /api/v1/mcp/servers/:id/tools/:tool_id/verdict': { action: 'ALLOW', reason: 'r' },
  'POST /api/v1/traces/:trace_id/action': { action: 'JUSTIFIED', justification: 'long enough reason' },
  'POST /api/v1/verify-proof': { trace_id: '00000000-0000-0000-0000-000000000000' },
  'POST /api/v1/mcp/proxy/:server_id': {
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'get_weather', arguments: { city: 'x' } },
  },
  'PUT /api/v1/verify/field-roles/:tool': { fields: { city: 'content' } },
};

/** A good body with one field replaced by a hostile value (any type, deep, or a number that overflows). */
function mutated(r: Rand, good: Record<string, unknown>): string {
  const body: Record<string, unknown> = structuredClone(good);
  const keys = Object.keys(body);
  const key = chance(r, 0.8) && keys.length > 0 ? pick(r, keys) : pick(r, FIELDS);
  const kind = Math.floor(r() * 4);
  if (kind <= 1) {
    // Raw JSON text no JSON.stringify can produce: nesting deeper than the limit, or a number that overflows.
    const n = pick(r, [101, 2_000, 10_000]);
    const raw = kind === 0 ? '['.repeat(n) + ']'.repeat(n) : pick(r, ['1e999', '-1e999', '[1E400]', '{"a":-1e999}']);
    // Inside a field that holds an object (metadata, detail, arguments), so that the schema lets it through.
    const inner = body[key];
    if (inner !== null && typeof inner === 'object' && !Array.isArray(inner)) body[key] = { ...inner, fuzz: '\u0001MARK\u0001' };
    else body[key] = '\u0001MARK\u0001';
    return JSON.stringify(body).replace('"\\u0001MARK\\u0001"', raw);
  }
  body[key] = randomValue(r);
  return JSON.stringify(body);
}

/** A body as raw text: usually a JSON object of known field names with values of any type, sometimes broken on purpose. */
function bodyOf(r: Rand, route: Route): string | Buffer | undefined {
  const good = GOOD_BODIES[`${route.method} ${route.path}`];
  if (chance(r, 0.06)) return withInvalidUtf8(good ?? objectOf(r), pick(r, UTF8_PLACES), pick(r, INVALID_UTF8));
  if (chance(r, 0.03)) return hugeKeyBody(good ?? {}, pick(r, [100, 5_000, 60_000]), chance(r, 0.5));
  if (good && chance(r, 0.6)) return chance(r, 0.15) ? JSON.stringify(good) : mutated(r, good);
  const kind = Math.floor(r() * 12);
  switch (kind) {
    case 0:
      return undefined;
    case 1:
      return pick(r, [
        '{',
        '{"a":',
        'nul',
        '[1,]',
        '{"a":1}}',
        '"just a string"',
        '42',
        'null',
        '[]',
        '\u00ff\u00fe',
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"a":1e999}',
        '{"a":-1e999}',
      ]);
    case 2: {
      const n = pick(r, [100, 101, 1_000, 10_000]);
      return chance(r, 0.5) ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(n) + '1' + '}'.repeat(n);
    }
    case 3:
      return JSON.stringify({ ...objectOf(r), detail: 'x' }).replace('"x"', pick(r, ['1e999', '-1e999', '1E400', '9'.repeat(400)]));
    case 4:
      return JSON.stringify({ big: 'x'.repeat(70_000) });
    default:
      return JSON.stringify(chance(r, 0.1) ? randomValue(r) : objectOf(r));
  }
}

interface Who {
  token: string | null;
  label: string;
}

function headersOf(
  r: Rand,
  who: readonly Who[],
  route: Route,
  body: string | Buffer | undefined,
): { headers: Record<string, string>; label: string; requestId: string | null } {
  const headers: Record<string, string> = {};
  // Mostly the credential the route takes, so that most requests get past authentication.
  const w = route.auth === 'extension' && chance(r, 0.8) ? who.find((x) => x.label === 'extension')! : pick(r, who);
  if (w.token !== null) {
    headers.authorization = chance(r, 0.9)
      ? `Bearer ${w.token}`
      : pick(r, [
          `bearer ${w.token}`,
          `Bearer  ${w.token}`,
          `Basic ${w.token}`,
          `Bearer ${w.token}x`,
          'Bearer',
          'Bearer ',
          w.token,
          `Bearer ${w.token.slice(0, 10)}`,
          `Bearer ${w.token}, Bearer ${w.token}`,
        ]);
  }
  if (body !== undefined || chance(r, 0.2)) {
    headers['content-type'] = chance(r, 0.75)
      ? 'application/json'
      : pick(r, [
          'application/json; charset=utf-8',
          'application/json; charset=latin1',
          'text/plain',
          'application/x-www-form-urlencoded',
          'application/merge-patch+json',
          'APPLICATION/JSON',
          '',
          'application/json, text/plain',
          'multipart/form-data; boundary=x',
        ]);
  }
  if (chance(r, 0.4))
    headers['accept-language'] = pick(r, [
      'de',
      'fr-FR;q=0.9, en;q=0.1',
      '*',
      'de;q=1e999',
      'fr;q=NaN',
      '__proto__',
      ','.repeat(500),
      'x'.repeat(4000),
      'de-\u00e9;q=0.5',
      ';q=',
      'zz, de;q=0',
    ]);
  if (chance(r, 0.2)) headers.accept = pick(r, ['application/json, text/event-stream', 'text/event-stream', '*/*', 'text/html']);
  // Headers another route reads (the proxy's, the webhook's) or HTTP defines, where this route does not expect them.
  if (chance(r, 0.2)) {
    for (const [name, values] of Object.entries(UNEXPECTED_HEADERS)) if (chance(r, 0.25)) headers[name] = pick(r, values);
  }
  let requestId: string | null = null;
  if (chance(r, 0.5)) {
    requestId = pick(r, ['fuzz-request-0001', 'short', 'has space here', 'a'.repeat(129), 'é-accented-id', 'ok.id:with-colons_1']);
    headers['x-request-id'] = requestId;
  }
  return { headers, label: w.label, requestId };
}

interface Failure {
  what: string;
  status: number;
  text: string;
}

/**
 * Checks one answer: never a 5xx; a 4xx is the error object whose request_id is the X-Request-Id
 * header. The MCP proxy refuses what is not JSON-RPC in JSON-RPC's own form (CONTRACT: proxy errors
 * are JSON-RPC error objects), still with the X-Request-Id header.
 */
function judge(status: number, headers: Headers, text: string, sentId: string | null, path = ''): string | null {
  if (status >= 500) return `status ${status}`;
  if (status < 400) return null;
  let body: { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown; request_id?: unknown } } | null = null;
  try {
    body = JSON.parse(text);
  } catch {
    return 'a 4xx without a JSON body';
  }
  if (!/^application\/json/.test(headers.get('content-type') ?? '')) return 'a 4xx without Content-Type application/json';
  const e = body?.error;
  if (path.startsWith('/api/v1/mcp/proxy/') && body?.jsonrpc === '2.0' && typeof e?.code === 'number' && typeof e.message === 'string') {
    return headers.get('x-request-id') ? null : 'a JSON-RPC refusal without X-Request-Id';
  }
  if (!e || typeof e.code !== 'string' || typeof e.message !== 'string' || typeof e.request_id !== 'string')
    return 'a 4xx without {error:{code,message,request_id}}';
  if (e.request_id !== headers.get('x-request-id')) return 'request_id differs from X-Request-Id';
  if (e.message.length > MESSAGE_MAX_CHARS) return `a message of ${e.message.length} characters (it quotes input in full)`;
  if (sentId !== null && /^[A-Za-z0-9._:-]{8,128}$/.test(sentId) && e.request_id !== sentId) return 'a safe X-Request-Id was not kept';
  return null;
}

function describe(p: Pick<Planned, 'method' | 'path' | 'label' | 'body' | 'headers'>): string {
  const text = p.body === undefined ? '' : typeof p.body === 'string' ? p.body.slice(0, 80) : p.body.subarray(0, 80).toString('latin1');
  const body = p.body === undefined ? '' : ` body ${JSON.stringify(text)}`;
  const encoding = p.headers['content-encoding'] ? ` (${p.headers['content-encoding']})` : '';
  return `${p.method} ${p.path.slice(0, 120)} as ${p.label}${body}${encoding}`;
}

async function fixtures(t: Test, gw: TestGateway): Promise<{ pool: Pool; who: Who[] }> {
  const upstream = await startLegacyMcpServer(t, { tools: [...SAMPLE_TOOLS] });
  const server = (await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 'fuzzed', server_url: upstream.url } })).body;
  await gw.api('POST', `/api/v1/mcp/servers/${server.id}/scan`);
  const tools = (await gw.api('GET', `/api/v1/mcp/servers/${server.id}/tools`)).body.tools as { id: string; name: string }[];
  const agent = (await gw.api('POST', '/api/v1/agents', { body: { name: 'fuzz agent' } })).body;
  const mcpPolicy = (await gw.api('POST', '/api/v1/mcp/policies', { body: { action: 'DENY', agent_id: agent.id } })).body;
  const policies = (await gw.api('GET', '/api/v1/verify/policies')).body.policies as { id: string }[];
  const trace = (await gw.api('POST', '/api/v1/verify', { body: { prompt: 'hello' } })).body;
  const viewerKey = (await gw.api('POST', '/api/v1/keys', { body: { name: 'viewer', role: 'viewer' } })).body;
  const editor = await gw.key('editor', 'fuzz-editor');
  const extension = (await gw.api('POST', '/api/v1/extensions', { body: { name: 'fuzz ext' } })).body;
  const pool: Pool = {
    id: [server.id, agent.id, mcpPolicy.id, ...policies.map((p) => p.id), viewerKey.id, extension.id],
    server_id: [server.id],
    tool_id: tools.map((x) => x.id),
    tool: tools.map((x) => x.name),
    trace_id: [trace.trace_id],
  };
  const who: Who[] = [
    ...Array.from({ length: 6 }, () => ({ token: gw.adminToken, label: 'admin' })),
    { token: viewerKey.key, label: 'viewer' },
    { token: editor, label: 'editor' },
    { token: extension.api_key, label: 'extension' },
    { token: null, label: 'none' },
  ];
  return { pool, who };
}

const METHODS = ['GET', 'POST', 'PATCH', 'DELETE', 'PUT'] as const;

interface Planned {
  route: Route;
  method: string;
  path: string;
  body: string | Buffer | undefined;
  headers: Record<string, string>;
  label: string;
  requestId: string | null;
}

/**
 * Before the random part, each route once with each kind of malformation the issue names, whatever
 * the seed: a NUL in every path parameter, a NUL in the query, an odd Accept-Language, and (routes
 * with a body) its good body with a number that overflows and 10,000 levels of nesting inside each
 * field that holds an object.
 */
function sweep(route: Route, pool: Pool, who: readonly Who[]): Planned[] {
  const as = (w: Who | undefined): Record<string, string> => (w?.token ? { authorization: `Bearer ${w.token}` } : {});
  const caller = route.auth === 'extension' ? who.find((x) => x.label === 'extension') : who[0];
  const real = route.path.replace(/:([a-z_]+)/g, (_, name: string) => pool[name]?.[0] ?? 'x');
  const out: Planned[] = [];
  const add = (path: string, body: string | undefined, extra: Record<string, string> = {}) =>
    out.push({
      route,
      method: route.method,
      path,
      body,
      label: caller?.label ?? 'none',
      requestId: null,
      headers: { ...as(caller), ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...extra } as Record<string, string>,
    });
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  const good = GOOD_BODIES[`${route.method} ${route.path}`] ?? {};
  const goodText = hasBody ? JSON.stringify(good) : undefined;
  if (route.path.includes('/:'))
    add(
      route.path.replace(/:([a-z_]+)/g, (_, name: string) => `${pool[name]?.[0] ?? 'x'}%00`),
      goodText,
    );
  add(`${real}?x=%00`, goodText);
  add(real, goodText, { 'accept-language': 'de;q=1e999, *;q=NaN, __proto__' });
  if (!hasBody) return out;
  const holders = Object.keys(good).filter((k) => good[k] !== null && typeof good[k] === 'object' && !Array.isArray(good[k]));
  for (const key of [...holders, null]) {
    for (const raw of ['-1e999', '['.repeat(10_000) + ']'.repeat(10_000)]) {
      const body: Record<string, unknown> = structuredClone(good);
      if (key === null) body.fuzz = '\u0001MARK\u0001';
      else body[key] = { ...(body[key] as object), fuzz: '\u0001MARK\u0001' };
      add(real, JSON.stringify(body).replace('"\\u0001MARK\\u0001"', raw));
    }
  }
  return out;
}

function send(gw: TestGateway, p: Pick<Planned, 'method' | 'path' | 'body' | 'headers'>): Promise<Response> {
  const body = typeof p.body === 'string' || p.body === undefined ? p.body : new Uint8Array(p.body);
  return fetch(gw.url + p.path, { method: p.method, headers: p.headers, body, signal: AbortSignal.timeout(20_000) });
}

interface Expected extends Planned {
  /** The refusal this class must get on this route, or null where only "no 5xx, the error object" is fixed. */
  expect: { status: number; code: string } | null;
}

/**
 * Each class of malformed input the issue names, once on every route, as the route's own caller:
 * the refusals that are fixed whatever the route (415 for an encoding, 400 for bytes that are not
 * UTF-8 in any field and for a declared query parameter given twice), then the classes where only
 * the rule is fixed (unexpected headers, empty and huge query values, huge keys).
 */
function classes(route: Route, who: readonly Who[]): Expected[] {
  const caller = route.auth === 'extension' ? who.find((x) => x.label === 'extension')! : who[0]!;
  const path = route.path.replace(/:([a-z_]+)/g, 'x');
  const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
  const good = GOOD_BODIES[`${route.method} ${route.path}`] ?? {};
  const out: Expected[] = [];
  const add = (expect: Expected['expect'], p: { path?: string; body?: string | Buffer; headers?: Record<string, string> }) =>
    out.push({
      route,
      method: route.method,
      path: p.path ?? path,
      body: p.body,
      label: caller.label,
      requestId: null,
      headers: {
        authorization: `Bearer ${caller.token}`,
        ...(p.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...p.headers,
      },
      expect,
    });
  const validation = { status: 400, code: 'validation_error' };
  if (hasBody) {
    for (const encoding of CONTENT_ENCODINGS.filter((e) => e !== 'identity'))
      add(
        { status: 415, code: 'unsupported_media_type' },
        { body: encodedBody(encoding, JSON.stringify(good)), headers: { 'content-encoding': encoding } },
      );
    // Every place in a body and every byte sequence, each at least once (paired round-robin).
    for (let i = 0; i < Math.max(UTF8_PLACES.length, INVALID_UTF8.length); i += 1)
      add(validation, { body: withInvalidUtf8(good, UTF8_PLACES[i % UTF8_PLACES.length]!, INVALID_UTF8[i % INVALID_UTF8.length]!) });
  }
  const body = hasBody ? JSON.stringify(good) : undefined;
  for (const name of declaredQuery(route)) add(validation, { path: `${path}?${name}=1&${name}=2`, body });
  add(validation, { path: `${path}?x=%e0%80%af`, body });
  add(validation, { path: `${path}?%c0%80=1`, body });
  add(null, { body, headers: unexpectedHeaders((values) => values[0]!) });
  add(null, { body, headers: unexpectedHeaders((values) => values[values.length - 1]!) });
  for (const query of malformedQueries([...declaredQuery(route), 'id', 'limit'])) add(null, { path: path + query, body });
  if (hasBody) for (const nested of [false, true]) add(null, { body: hugeKeyBody(good, 60_000, nested) });
  return out;
}

/** The classes sweep: sequential, so that its refusals can be shown to write nothing. */
async function classSweep(t: Test, gw: TestGateway, who: readonly Who[]): Promise<void> {
  const plan = gw.gateway.http.routes.flatMap((route) => classes(route, who));
  const refusals = plan.filter((p) => p.expect !== null);
  const failures: string[] = [];
  const check = async (p: Expected): Promise<void> => {
    const res = await send(gw, p);
    // A 2xx event stream stays open (GET /api/v1/approvals/events): its head is judged, its body not read.
    const streaming = res.ok && (res.headers.get('content-type') ?? '').startsWith('text/event-stream');
    if (streaming) await res.body?.cancel();
    const text = streaming ? '' : await res.text();
    const problem = judge(res.status, res.headers, text, null, p.path);
    if (problem) failures.push(`${problem}: ${describe(p)}: ${text.slice(0, 200)}`);
    else if (p.expect && (res.status !== p.expect.status || JSON.parse(text).error?.code !== p.expect.code))
      failures.push(`${res.status} ${text.slice(0, 160)} instead of ${p.expect.status} ${p.expect.code}: ${describe(p)}`);
  };
  const before = await rowCounts(gw.db);
  // Refusals change nothing, so they may run side by side.
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < refusals.length) await check(refusals[next++]!);
    }),
  );
  t.same(await rowCounts(gw.db), before, `${refusals.length} refusals of malformed input wrote nothing`);
  for (const route of gw.gateway.http.routes) {
    for (const p of plan.filter((x) => x.expect === null && x.route === route)) await check(p);
    // A good body may have stopped the project or lowered its rate limit: undone before the next route.
    if (route.method !== 'GET') await restore(gw);
  }
  t.same(
    failures.slice(0, 20),
    [],
    `${plan.length} requests, each class on every route: the refusal it must get, no 5xx, the error object`,
  );
}

t.test(`fuzz every route (seed ${SEED}): no 5xx, and every 4xx is the error object with the request id`, async (t) => {
  t.comment(`fuzz seed ${SEED} (replay: GATEWAY_FUZZ_SEED=${SEED}), ${REQUESTS} requests`);
  // A small body limit makes "too large" cheap to send.
  const gw = await startTestGateway(t, {
    env: {
      GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8',
      GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '3',
      GATEWAY_BODY_LIMIT_BYTES: '65536',
      // No periodic writes: the classes sweep shows that its refusals wrote nothing.
      GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400',
      GATEWAY_RETENTION_INTERVAL_SECONDS: '86400',
    },
  });
  const { pool, who } = await fixtures(t, gw);
  const routes = gw.gateway.http.routes;
  t.ok(routes.length >= 60, `${routes.length} routes from the route table`);
  await restore(gw);
  await classSweep(t, gw, who);
  const r = prng(SEED);
  // Routes with a good body to mutate come round twice as often: their mutations reach deepest.
  const order = [...routes, ...routes.filter((x) => GOOD_BODIES[`${x.method} ${x.path}`])];
  // Every request is drawn up front, so the sequence depends on the seed alone, not on timing.
  const plan = [
    ...routes.flatMap((route) => sweep(route, pool, who)),
    ...Array.from({ length: REQUESTS }, (_, i) => {
      const route = order[i % order.length]!; // every route at least REQUESTS / order times
      const method = chance(r, 0.05) ? pick(r, METHODS) : route.method;
      const path = pathOf(r, route, pool) + queryOf(r, route);
      let body = method === 'GET' ? undefined : bodyOf(r, route);
      const planned = { route, method, path, body, ...headersOf(r, who, route, body) };
      // Now and then a body in an encoding (really compressed where Node can): only identity is taken.
      if (typeof body === 'string' && chance(r, 0.05)) {
        const encoding = pick(r, CONTENT_ENCODINGS);
        body = encodedBody(encoding, body);
        return { ...planned, body, headers: { ...planned.headers, 'content-encoding': encoding } };
      }
      return planned;
    }),
  ];
  const failures: Failure[] = [];
  const seen = new Map<string, number>();
  const started = Date.now();
  let next = 0;
  let sent = 0;
  const worker = async (): Promise<void> => {
    while (next < plan.length && Date.now() - started < TIME_BOUND_MS) {
      const p = plan[next++]!;
      const what = describe(p);
      try {
        const res = await send(gw, p);
        // A 2xx may be an event stream that stays open: only refusals are read.
        let text = '';
        if (res.status >= 400) text = await res.text();
        else await res.body?.cancel();
        sent += 1;
        seen.set(`${res.status}`, (seen.get(`${res.status}`) ?? 0) + 1);
        const problem = judge(res.status, res.headers, text, p.requestId, p.path);
        if (problem) failures.push({ what: `${problem}: ${what}`, status: res.status, text: text.slice(0, 300) });
      } catch (err) {
        // fetch refuses some header values itself (a TypeError before sending): not the daemon's doing.
        if (err instanceof TypeError && err.message !== 'fetch failed') continue;
        failures.push({ what: `no answer (${(err as Error).message}): ${what}`, status: 0, text: '' });
      }
      // The fuzz may stop the project or lower its rate limit: undo it now and then so later requests still go deep.
      if (next % 100 === 0) await restore(gw);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  t.comment(`sent ${sent} in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
  t.ok(sent >= Math.min(REQUESTS, 300), `${sent} requests answered within the time bound`);
  t.same(failures.slice(0, 20), [], `no 5xx and the error object on every 4xx (seed ${SEED})`);
  t.notOk(
    gw.logLines.some((l) => l.includes('"level":50')),
    'no unexpected error logged',
  );
  await rawFuzz(t, gw, prng(SEED ^ 0x5eed));
});

async function restore(gw: TestGateway): Promise<void> {
  await gw.api('POST', '/api/v1/project/emergency-stop/lift', { body: {} }).catch(() => undefined);
  await gw
    .api('PATCH', '/api/v1/project', { body: { rate_limit_per_minute: 60_000, audit_detail_level: 'standard' } })
    .catch(() => undefined);
}

/** Requests fetch cannot send: raw bytes in the request line, broken headers and framing, odd targets. */
async function rawFuzz(t: Test, gw: TestGateway, r: Rand): Promise<void> {
  const port = Number(new URL(gw.url).port);
  const paths = gw.gateway.http.routes.map((x) => x.path.replace(/:[a-z_]+/g, 'x'));
  const failures: string[] = [];
  const lines = (path: string): Buffer[] => [
    Buffer.concat([Buffer.from(`GET ${path}/`), Buffer.from([0x80 + Math.floor(r() * 0x7f), 0xc3, 0xa9]), Buffer.from(' HTTP/1.1\r\n')]),
    ...['//', '/\\', '//[', '//x%00y/', '*', 'http://[::1/x', `//evil${path}`, `${path}?a=%00`].map((target) =>
      Buffer.from(`GET ${target} HTTP/1.1\r\n`),
    ),
    ...['GE T', 'G\u0000T', '', 'BREW', 'get'].map((method) => Buffer.from(`${method} ${path} HTTP/1.1\r\n`)),
    // CONNECT, which Node hands to a 'connect' listener or else closes without an answer.
    Buffer.from('CONNECT example.com:443 HTTP/1.1\r\n'),
    ...['1.2', '2.0', '9.9', 'x', ''].map((version) => Buffer.from(`GET ${path} HTTP/${version}\r\n`)),
    Buffer.from(`GET ${path} HTTP/1.1\r\n`),
  ];
  const headers = [
    'Host: x\r\n',
    'Host: x\r\nBad Header: 1\r\n',
    'Host: x\r\nX-A: a\u0000b\r\n',
    'Host: x\r\nnocolon\r\n',
    `Host: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n`,
    'Host: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n',
    'Host: x\r\nContent-Length: -1\r\n',
    'Host: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n',
    // An expectation Node would answer itself with a bare 417.
    'Host: x\r\nExpect: x-unknown\r\n',
    `Host: x\r\nAuthorization: Bearer ${gw.adminToken}\r\nExpect: 100-continue, x-more\r\nContent-Length: 2\r\n`,
    `Host: x\r\nAuthorization: Bearer ${gw.adminToken}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n`,
  ];
  const request = (line: Buffer, header: string): Buffer => {
    // A chunked body always comes (complete or broken), so that no request waits for more bytes.
    const tail = header.includes('chunked') ? pick(r, ['\r\nzz\r\n', '\r\n3\r\n{"a\r\nzz\r\n', '\r\n5\r\n{"a":\r\n0\r\n\r\n']) : '\r\n';
    return Buffer.concat([line, Buffer.from(`${header}Connection: close\r\n`, 'latin1'), Buffer.from(tail)]);
  };
  // Every request line with a plain header, every header with a plain line, then random pairs.
  // Every route once with each header given twice (fetch would join them into one).
  const repeated = gw.gateway.http.routes.map((route) =>
    Buffer.from(
      `${route.method} ${route.path.replace(/:[a-z_]+/g, 'x')} HTTP/1.1\r\nHost: x\r\n`
        + `Authorization: Bearer ${gw.adminToken}\r\nAuthorization: Bearer ${gw.adminToken}\r\n`
        + `${REPEATED_HEADERS.join('\r\n')}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    ),
  );
  const plan = [
    ...repeated,
    ...lines(pick(r, paths)).map((line) => request(line, headers[0]!)),
    ...headers.map((header) => request(Buffer.from(`POST ${pick(r, paths)} HTTP/1.1\r\n`), header)),
    ...Array.from({ length: RAW_REQUESTS }, () => request(pick(r, lines(pick(r, paths))), pick(r, headers))),
  ];
  for (const bytes of plan) {
    const answer = parseRaw(await rawExchange(port, bytes));
    if (!answer) {
      failures.push(`no HTTP answer to ${JSON.stringify(bytes.toString('latin1').slice(0, 100))}`);
      continue;
    }
    const problem = judge(answer.status, new Headers(answer.headers), JSON.stringify(answer.body), null);
    if (problem) failures.push(`${problem}: ${answer.status} to ${JSON.stringify(bytes.toString('latin1').slice(0, 100))}`);
  }
  t.same(failures.slice(0, 20), [], `${plan.length} raw requests: an HTTP answer each, no 5xx, the error object on every 4xx`);
  t.equal((await gw.api('GET', '/healthz')).status, 200, 'the daemon lives on');
}
