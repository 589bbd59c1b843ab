// Browser origins (http/origin.ts): a request carrying an Origin that GATEWAY_ALLOWED_ORIGINS does
// not list is refused 403 origin_not_allowed with the error object, on the MCP proxy and every
// other route, before anything is read or written; a listed origin and a request without Origin
// (every non-browser client) are served. Host is not validated (docs/mcp-gateway.md, "Browser origins").
import http from 'node:http';
import t from 'tap';
import { loadConfig } from '../../daemon/config.js';
import { activeServer, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';

const ALLOWED = 'https://console.example.test';
const px = await startProxyGateway(t, { GATEWAY_ALLOWED_ORIGINS: `${ALLOWED.toUpperCase()}, chrome-extension://abcdefghijklmnop` });
const { gw } = px;
const up = await startCountingServer(t);
const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
const proxyPath = `/api/v1/mcp/proxy/${server.id}`;
const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'origin-test', version: '1' } },
};

/** A raw request (fetch may not let a test set Host). */
// biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, read field by field in the assertions
function request(method: string, route: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const url = new URL(gw.url + route);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          authorization: `Bearer ${gw.adminToken}`,
          accept: 'application/json, text/event-stream',
          ...(text ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) } : {}),
          ...headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const raw = Buffer.concat(chunks).toString('utf8');
          let parsed: unknown = raw;
          try {
            parsed = JSON.parse(raw);
          } catch {
            /* an event stream */
          }
          resolve({ status: res.statusCode!, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const counts = async () =>
  (await gw.db`select (select count(*) from traces)::int as traces, (select count(*) from agents)::int as agents`)[0];

t.test('a browser origin not listed is refused on the MCP proxy: 403 with the error object, nothing reaches the upstream', async (t) => {
  const seen = up.seen.length;
  const before = await counts();
  for (const origin of ['http://evil.example.com', 'null', `${ALLOWED}:8443`, 'http://console.example.test']) {
    const res = await request('POST', proxyPath, { origin, host: 'evil.example.com' }, INIT);
    t.equal(res.status, 403, origin);
    t.match(res.body, { error: { code: 'origin_not_allowed', message: String, request_id: String } }, origin);
    t.same(Object.keys(res.body.error).sort(), ['code', 'message', 'request_id']);
  }
  const call = await request(
    'POST',
    proxyPath,
    { origin: 'http://evil.example.com' },
    { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_weather', arguments: { city: 'x' } } },
  );
  t.equal(call.status, 403);
  t.equal(up.seen.length, seen, 'the upstream saw nothing');
  t.same(await counts(), before, 'nothing was written');
});

t.test('a listed origin (any case) and a request without Origin are served; Host is not what decides', async (t) => {
  for (const headers of [
    { origin: ALLOWED },
    { origin: ALLOWED.toUpperCase() },
    { origin: 'chrome-extension://abcdefghijklmnop' },
    {},
    { host: 'evil.example.com' },
  ] as Record<string, string>[]) {
    const res = await request('POST', proxyPath, headers, INIT);
    t.equal(res.status, 200, JSON.stringify(headers));
  }
});

t.test('every other route too: the admin API and verify refuse an unlisted browser origin before reading or writing', async (t) => {
  const before = await counts();
  const agents = await request(
    'POST',
    '/api/v1/agents',
    { origin: 'http://evil.example.com' },
    { name: 'from-a-page', protection_profile: 'safe' },
  );
  t.equal(agents.status, 403);
  t.equal(agents.body.error.code, 'origin_not_allowed');
  const verify = await request('POST', '/api/v1/verify', { origin: 'http://evil.example.com' }, { prompt: 'hello' });
  t.equal(verify.status, 403);
  t.equal(verify.body.error.code, 'origin_not_allowed');
  const anon = await request('GET', '/api/v1/agents', { origin: 'http://evil.example.com', authorization: '' });
  t.equal(anon.status, 403, 'refused before authentication: a page learns nothing about tokens');
  t.same(await counts(), before, 'nothing was written');
  const ok = await request(
    'POST',
    '/api/v1/verify',
    { origin: 'chrome-extension://abcdefghijklmnop' },
    { prompt: 'hello', metadata: { source: 'browser' } },
  );
  t.equal(ok.status, 200, 'the listed browser-guard extension is served');
});

t.test('GATEWAY_ALLOWED_ORIGINS: default none; exact origins only', async (t) => {
  const base = { GATEWAY_DATA_DIR: '/tmp/x' };
  t.same([...loadConfig(base).allowedOrigins], []);
  t.same(
    [...loadConfig({ ...base, GATEWAY_ALLOWED_ORIGINS: ' https://A.example , http://127.0.0.1:3000 ' }).allowedOrigins],
    ['https://a.example', 'http://127.0.0.1:3000'],
  );
  for (const bad of ['https://a.example/', 'https://a.example/path', 'a.example', '*', 'null']) {
    t.throws(() => loadConfig({ ...base, GATEWAY_ALLOWED_ORIGINS: bad }), bad);
  }
});
