import t, { type Test } from 'tap';
import { Agent } from 'undici';
import { McpSession, scanServer, toolFingerprint, type McpClientOptions, type UpstreamAuth } from '../../daemon/mcp/client/session.js';
import { McpClientError, scanOutcomeOf } from '../../daemon/mcp/client/errors.js';
import { createUpstreamDispatcher } from '../../daemon/mcp/client/ssrf-guard.js';
import {
  SAMPLE_TOOLS,
  listen,
  manyTools,
  startEverythingServer,
  startLegacyMcpServer,
  startModernMcpServer,
  startScriptedServer,
  type RunningServer,
} from '../helpers/mcp-servers.js';

const NONE: UpstreamAuth = { method: 'none' };

function options(t: Test, overrides: Partial<McpClientOptions> = {}, allow: readonly string[] = ['127.0.0.1/32']): McpClientOptions {
  const dispatcher = createUpstreamDispatcher({ allow, connectTimeoutMs: 5000 });
  t.teardown(() => dispatcher.close());
  return { dispatcher, timeoutMs: 10_000, responseLimitBytes: 1024 * 1024, ...overrides };
}

const methods = (server: RunningServer) => server.seen.map((r) => (r.httpMethod === 'POST' ? r.rpcMethod : r.httpMethod));
const header = (server: RunningServer, rpcMethod: string, name: string) =>
  server.seen.find((r) => r.rpcMethod === rpcMethod)?.headers[name];

t.test('2025 era, SDK 1.x stateful with JSON answers: probe, handshake, session, tools, DELETE', async (t) => {
  const server = await startLegacyMcpServer(t, { response: 'json' });
  const scan = await scanServer(server.url, NONE, options(t));
  t.equal(scan.era, '2025-11-25');
  t.equal(scan.protocolVersion, '2025-11-25');
  t.same(scan.serverInfo, { name: 'legacy-sdk', version: '1.32.2' });
  t.same(
    scan.tools.map((tool) => tool.name),
    ['echo'],
  );
  t.match(scan.tools[0], {
    title: 'Echo',
    description: 'Echoes the text back.',
    annotations: { readOnlyHint: true },
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  });
  t.same(methods(server), ['server/discover', 'initialize', 'notifications/initialized', 'tools/list', 'DELETE']);
  const sid = server.seen[2].headers['mcp-session-id'];
  t.type(sid, 'string', 'the session id of the initialize answer is carried');
  for (const r of server.seen.slice(2)) {
    t.equal(r.headers['mcp-session-id'], sid);
    t.equal(r.headers['mcp-protocol-version'], '2025-11-25');
  }
  t.equal(header(server, 'initialize', 'mcp-protocol-version'), undefined, 'no version header on initialize itself');
  t.ok(
    server.seen.every((r) => r.headers.authorization === undefined),
    'no Authorization is sent when none is configured',
  );
});

t.test('2025 era, SDK 1.x answering as SSE streams', async (t) => {
  const server = await startLegacyMcpServer(t, { response: 'sse', tools: SAMPLE_TOOLS });
  const scan = await scanServer(server.url, NONE, options(t));
  t.equal(scan.era, '2025-11-25');
  t.same(scan.tools, SAMPLE_TOOLS);
});

t.test('2025 era, SDK 1.x stateless: no session id, no DELETE', async (t) => {
  const server = await startLegacyMcpServer(t, { response: 'json', stateless: true });
  const scan = await scanServer(server.url, NONE, options(t));
  t.equal(scan.era, '2025-11-25');
  t.same(methods(server), ['server/discover', 'initialize', 'notifications/initialized', 'tools/list']);
  t.ok(server.seen.every((r) => r.headers['mcp-session-id'] === undefined));
});

t.test('tools/list pages are followed through nextCursor, and bounded', async (t) => {
  const tools = manyTools(7);
  const server = await startLegacyMcpServer(t, { response: 'json', tools, pageSize: 3 });
  const scan = await scanServer(server.url, NONE, options(t));
  t.same(scan.tools, tools);
  const cursors = server.seen
    .filter((r) => r.rpcMethod === 'tools/list')
    .map((r) => (r.body as { params?: { cursor?: string } }).params?.cursor);
  t.same(cursors, [undefined, 'page-3', 'page-6']);
  await t.rejects(scanServer(server.url, NONE, options(t, { maxPages: 2 })), {
    name: 'McpClientError',
    kind: 'too_large',
    message: /more than 2 pages/,
  });
  t.equal(server.seen.at(-1)?.httpMethod, 'DELETE', 'the session is ended after a failed scan too');
});

t.test('2026-07-28 era, SDK 2.x (dual-era endpoint): server/discover, envelope and headers, no session', async (t) => {
  const server = await startModernMcpServer(t, { response: 'json' });
  const scan = await scanServer(server.url, NONE, options(t));
  t.equal(scan.era, '2026-07-28');
  t.equal(scan.protocolVersion, '2026-07-28');
  t.same(scan.serverInfo, { name: 'modern-sdk', version: '2.4.0' });
  t.same(scan.tools, SAMPLE_TOOLS, 'every surface field arrives unchanged, the $ref schema included');
  t.same(methods(server), ['server/discover', 'tools/list'], 'no initialize, no DELETE');
  for (const r of server.seen) {
    t.equal(r.headers['mcp-protocol-version'], '2026-07-28');
    t.equal(r.headers['mcp-method'], r.rpcMethod);
    t.equal(r.headers['mcp-session-id'], undefined);
    t.match(r.body, {
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
    });
  }
});

t.test('2026-07-28 era, modern-only endpoint answering SSE, paged', async (t) => {
  const tools = manyTools(5);
  const server = await startModernMcpServer(t, { legacy: 'reject', response: 'sse', tools, pageSize: 2 });
  const scan = await scanServer(server.url, NONE, options(t));
  t.equal(scan.era, '2026-07-28');
  t.same(scan.tools, tools);
  t.same(methods(server), ['server/discover', 'tools/list', 'tools/list', 'tools/list']);
});

t.test('server-everything (streamable HTTP mode) scans in the 2025 era', async (t) => {
  const server = await startEverythingServer(t);
  const scan = await scanServer(server.url, NONE, options(t, { timeoutMs: 30_000 }));
  t.equal(scan.era, '2025-11-25');
  t.ok(scan.serverInfo?.name, 'it names itself');
  const names = scan.tools.map((tool) => tool.name);
  t.ok(names.includes('echo'), `echo among ${names.join(', ')}`);
  t.ok(scan.tools.length >= 5);
  t.equal(new Set(scan.tools.map(toolFingerprint)).size, scan.tools.length, 'distinct tools, distinct fingerprints');
});

t.test('a pinned era skips the probe; pinning the modern era on a 2025 server fails cleanly', async (t) => {
  const modern = await startModernMcpServer(t);
  const legacyScan = await scanServer(modern.url, NONE, options(t, { era: '2025-11-25' }));
  t.equal(legacyScan.era, '2025-11-25', 'the dual-era server also serves the 2025 handshake');
  t.same(legacyScan.tools, SAMPLE_TOOLS);
  t.notOk(modern.seen.some((r) => r.rpcMethod === 'server/discover'));
  const legacy = await startLegacyMcpServer(t, { response: 'json' });
  await t.rejects(scanServer(legacy.url, NONE, options(t, { era: '2026-07-28' })), { name: 'McpClientError', kind: 'invalid_response' });
  t.same(methods(legacy), ['server/discover'], 'a refused probe leaves no session behind on the old server');
});

t.test('bearer and header sign-in is attached; a wrong one is auth_failed', async (t) => {
  const legacy = await startLegacyMcpServer(t, { response: 'json', auth: { bearer: 's3cret-token' } });
  const ok = await scanServer(legacy.url, { method: 'bearer', config: { token: 's3cret-token' } }, options(t));
  t.same(
    ok.tools.map((tool) => tool.name),
    ['echo'],
  );
  await t.rejects(scanServer(legacy.url, { method: 'bearer', config: { token: 'wrong' } }, options(t)), {
    name: 'McpClientError',
    kind: 'auth_failed',
    status: 401,
  });
  await t.rejects(scanServer(legacy.url, NONE, options(t)), { name: 'McpClientError', kind: 'auth_failed', status: 401 });
  const modern = await startModernMcpServer(t, { auth: { header: { name: 'X-Api-Key', value: 'k-123' } } });
  const scan = await scanServer(modern.url, { method: 'header', config: { name: 'X-Api-Key', value: 'k-123' } }, options(t));
  t.equal(scan.era, '2026-07-28');
  t.ok(
    modern.seen.every((r) => r.headers['x-api-key'] === 'k-123' && r.headers.authorization === undefined),
    'only the configured header is sent',
  );
});

t.test('a sign-in that cannot be attached fails before any packet is sent', async (t) => {
  const server = await startLegacyMcpServer(t, { response: 'json' });
  const cases: Array<[UpstreamAuth, string]> = [
    [{ method: 'oauth2', config: { client_id: 'x' } }, 'auth_unsupported'],
    [{ method: 'bearer', config: {} }, 'auth_token_missing'],
    [{ method: 'bearer', config: null }, 'auth_token_missing'],
    [{ method: 'bearer', config: { token: 'two words' } }, 'auth_unsupported'],
    [{ method: 'bearer', config: { token: 'line\r\nX-Evil: 1' } }, 'auth_unsupported'],
    [{ method: 'header', config: { name: 'X-Key' } }, 'auth_token_missing'],
    [{ method: 'header', config: { value: 'v' } }, 'auth_unsupported'],
    [{ method: 'header', config: { name: 'Mcp-Session-Id', value: 'v' } }, 'auth_unsupported'],
    [{ method: 'header', config: { name: 'Host', value: 'evil' } }, 'auth_unsupported'],
    [{ method: 'header', config: { name: 'Bad Name', value: 'v' } }, 'auth_unsupported'],
  ];
  for (const [auth, kind] of cases)
    await t.rejects(scanServer(server.url, auth, options(t)), { name: 'McpClientError', kind }, JSON.stringify(auth));
  t.equal(server.connections(), 0);
  t.same(scanOutcomeOf('auth_unsupported'), { state: 'not_run', reason: 'auth_method_unsupported' });
  t.same(scanOutcomeOf('auth_token_missing'), { state: 'not_run', reason: 'auth_token_missing' });
});

t.test('a forbidden address is refused before any packet; so are URLs with credentials or other schemes', async (t) => {
  const server = await startLegacyMcpServer(t, { response: 'json' });
  await t.rejects(scanServer(server.url, NONE, options(t, {}, [])), {
    name: 'McpClientError',
    kind: 'forbidden_address',
    code: 'upstream_url_forbidden',
  });
  await t.rejects(scanServer(`http://localhost:${server.port}/mcp`, NONE, options(t, {}, [])), {
    name: 'McpClientError',
    kind: 'forbidden_address',
  });
  await t.rejects(scanServer(`http://u:p@127.0.0.1:${server.port}/mcp`, NONE, options(t)), {
    name: 'McpClientError',
    kind: 'forbidden_address',
  });
  await t.rejects(scanServer(`ftp://127.0.0.1:${server.port}/mcp`, NONE, options(t)), {
    name: 'McpClientError',
    kind: 'forbidden_address',
  });
  t.equal(server.connections(), 0);
  t.same(scanOutcomeOf('forbidden_address'), { state: 'not_run', reason: 'upstream_url_forbidden' });
});

t.test('the client refuses to send through any dispatcher but the guarded one', async (t) => {
  const plain = new Agent();
  t.teardown(() => plain.close());
  await t.rejects(scanServer('http://127.0.0.1:1/mcp', NONE, { ...options(t), dispatcher: plain }), TypeError);
});

t.test('a server that never answers: timeout on connect + first byte', async (t) => {
  const server = await startScriptedServer(t, { misbehave: 'stall', on: '*' });
  const started = Date.now();
  await t.rejects(scanServer(server.url, NONE, options(t, { timeoutMs: 400 })), {
    name: 'McpClientError',
    kind: 'timeout',
    code: 'UND_ERR_HEADERS_TIMEOUT',
  });
  t.ok(Date.now() - started < 5000, 'gave up promptly');
  t.same(scanOutcomeOf('timeout'), { state: 'failed', reason: 'unreachable' });
});

t.test('a body that stops halfway: timeout on the idle body', async (t) => {
  const server = await startScriptedServer(t, { misbehave: 'stall-body' });
  await t.rejects(scanServer(server.url, NONE, options(t, { timeoutMs: 400 })), { name: 'McpClientError', kind: 'timeout' });
});

t.test('an SSE stream of notifications that never brings the response: the total time limit', async (t) => {
  const server = await startScriptedServer(t, { misbehave: 'trickle-sse' });
  const started = Date.now();
  await t.rejects(scanServer(server.url, NONE, options(t, { timeoutMs: 5000, totalTimeoutMs: 800 })), {
    name: 'McpClientError',
    kind: 'timeout',
  });
  t.ok(Date.now() - started < 5000, 'the idle timeout alone would never have fired');
});

t.test('an endless SSE event and an endless JSON answer stop at the byte limit', async (t) => {
  const sse = await startScriptedServer(t, { misbehave: 'endless-sse' });
  await t.rejects(scanServer(sse.url, NONE, options(t, { responseLimitBytes: 256 * 1024 })), {
    name: 'McpClientError',
    kind: 'too_large',
    message: /SSE event/,
  });
  const json = await startScriptedServer(t, { misbehave: 'endless-json' });
  await t.rejects(scanServer(json.url, NONE, options(t, { responseLimitBytes: 256 * 1024 })), {
    name: 'McpClientError',
    kind: 'too_large',
    message: /JSON answer/,
  });
  t.same(scanOutcomeOf('too_large'), { state: 'failed', reason: 'invalid_response' });
});

t.test('garbage, wrong content, errors and old or confused versions map to their kinds', async (t) => {
  const cases = [
    [{ misbehave: 'garbage' }, { name: 'McpClientError', kind: 'invalid_response' }],
    [{ misbehave: 'html' }, { name: 'McpClientError', kind: 'invalid_response' }],
    [{ misbehave: 'status-500' }, { name: 'McpClientError', kind: 'http_error', status: 500 }],
    [
      { misbehave: 'status-500', on: '*' },
      { name: 'McpClientError', kind: 'http_error', status: 500 },
    ],
    [{ misbehave: 'rpc-error' }, { name: 'McpClientError', kind: 'rpc_error', rpc: { code: -32603 } }],
    [
      { misbehave: 'version-2024', on: 'initialize' },
      { name: 'McpClientError', kind: 'invalid_response', message: /2024-11-05/ },
    ],
    [
      { misbehave: 'version-echo', on: 'initialize' },
      { name: 'McpClientError', kind: 'invalid_response', message: /2026-07-28/ },
    ],
  ] as const;
  for (const [behaviour, expected] of cases) {
    const server = await startScriptedServer(t, behaviour);
    await t.rejects(scanServer(server.url, NONE, options(t)), expected, JSON.stringify(behaviour));
  }
  t.same(scanOutcomeOf('rpc_error'), { state: 'failed', reason: 'rpc_error' });
  t.same(scanOutcomeOf('http_error'), { state: 'failed', reason: 'bad_status' });
});

t.test('a redirect is not followed: the status is the answer', async (t) => {
  const target = await startLegacyMcpServer(t, { response: 'json' });
  const server = await startScriptedServer(t, { misbehave: 'redirect', on: '*', redirectTo: target.url });
  await t.rejects(scanServer(server.url, NONE, options(t)), { name: 'McpClientError', kind: 'http_error', status: 307 });
  t.equal(target.connections(), 0);
});

t.test('nobody listening: unreachable', async (t) => {
  const server = await listen(t, (_req, res) => {
    res.end();
  });
  const url = server.url.replace(`:${server.port}/`, ':1/');
  await t.rejects(scanServer(url, NONE, options(t)), { name: 'McpClientError', kind: 'unreachable', code: 'ECONNREFUSED' });
});

t.test('a caller cancellation is aborted, not an upstream fault', async (t) => {
  const server = await startScriptedServer(t, { misbehave: 'stall', on: '*' });
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const err = await scanServer(server.url, NONE, options(t, { signal: controller.signal })).catch((e: unknown) => e);
  t.ok(err instanceof McpClientError);
  t.equal((err as McpClientError).kind, 'aborted');
  t.equal(scanOutcomeOf('aborted'), null);
});

t.test('McpSession.request forwards in either era; the modern one mirrors Mcp-Name', async (t) => {
  const legacy = await startLegacyMcpServer(t, { response: 'sse' });
  const old = await McpSession.open(legacy.url, NONE, options(t));
  t.same(await old.request('tools/call', { name: 'echo', arguments: { text: 'hi' } }), { content: [{ type: 'text', text: 'hi' }] });
  await old.close();
  await old.close();
  t.equal(legacy.seen.filter((r) => r.httpMethod === 'DELETE').length, 1, 'closed once');
  await t.rejects(old.request('tools/list'), /closed/);

  const modern = await startModernMcpServer(t, { response: 'sse' });
  const session = await McpSession.open(modern.url, NONE, options(t));
  t.equal(session.era, '2026-07-28');
  const result = await session.request('tools/call', { name: 'get_weather', arguments: { city: 'Z\u00fcrich' } });
  t.match(result, { content: [{ type: 'text', text: '{"city":"Z\u00fcrich"}' }], structuredContent: {} });
  const call = modern.seen.find((r) => r.rpcMethod === 'tools/call');
  t.equal(call?.headers['mcp-name'], 'get_weather');
  t.equal(call?.headers['mcp-method'], 'tools/call');
  await session.request('tools/call', { name: 'g\u00e9t', arguments: {} }).catch(() => undefined);
  t.equal(
    modern.seen.at(-1)?.headers['mcp-name'],
    `=?base64?${Buffer.from('g\u00e9t').toString('base64')}?=`,
    'a non-ASCII name is sent in the Base64 sentinel form',
  );
  await session.close();
});
