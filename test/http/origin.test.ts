// Browser origins (http/origin.ts): a request carrying an Origin that is neither the gateway's own
// public origin nor listed in GATEWAY_ALLOWED_ORIGINS is refused 403 origin_not_allowed with the
// error object, on the MCP proxy and every other route, before anything is read or written; the
// own origin, a listed one and a request without Origin (every non-browser client) are served.
// Host is not validated, and never makes an origin the gateway's own (docs/mcp-gateway.md, "Browser origins").
import http from 'node:http';
import t from 'tap';
import { loadConfig } from '../../daemon/config.js';
import { checkOrigin } from '../../daemon/http/origin.js';
import { startTestGateway, type ApiResponse } from '../helpers/gateway.js';
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
function request(
  method: string,
  route: string,
  headers: Record<string, string>,
  body?: unknown,
  to: { url: string; adminToken: string } = gw,
): Promise<{ status: number; body: ApiResponse['body'] }> {
  return new Promise((resolve, reject) => {
    const url = new URL(to.url + route);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method,
        headers: {
          authorization: `Bearer ${to.adminToken}`,
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

t.test("the gateway's own origin is served with no origin listed: the listen address, or GATEWAY_PUBLIC_URL when set", async (t) => {
  const plain = await startTestGateway(t);
  const own = plain.url; // http://127.0.0.1:<port>, the default public URL
  const get = (headers: Record<string, string>, at: { url: string; adminToken: string } = plain) =>
    request('GET', '/api/v1/project', headers, undefined, at);
  const served = await get({ origin: own });
  t.equal(served.status, 200, `Origin ${own} (the listen address) is served`);
  const port = new URL(own).port;
  // DNS rebinding: the page's Origin always matches the Host it was loaded under; neither is the gateway's own.
  for (const [origin, host] of [
    [`http://evil.example.com:${port}`, `evil.example.com:${port}`],
    [`http://localhost:${port}`, `localhost:${port}`],
    ['http://evil.example.com', new URL(own).host],
    [`https://127.0.0.1:${port}`, new URL(own).host],
  ] as const) {
    const refused = await get({ origin, host });
    t.equal(refused.status, 403, `${origin} with Host ${host}`);
    t.equal(refused.body.error.code, 'origin_not_allowed');
  }

  const behind = await startTestGateway(t, { env: { GATEWAY_PUBLIC_URL: 'https://Gateway.Example.test' } });
  t.equal((await get({ origin: 'https://gateway.example.test' }, behind)).status, 200);
  t.equal((await get({ origin: 'HTTPS://GATEWAY.EXAMPLE.TEST' }, behind)).status, 200);
  t.equal(
    (await get({ origin: behind.url }, behind)).status,
    403,
    'with GATEWAY_PUBLIC_URL set, the listen address is not the public origin',
  );
  t.equal((await get({ origin: 'https://evil.example', host: 'evil.example' }, behind)).status, 403);
});

t.test('checkOrigin: the own origin only as configured, never from Host', async (t) => {
  const none: ReadonlySet<string> = new Set();
  t.doesNotThrow(() => checkOrigin({ origin: 'http://127.0.0.1:8080' }, none, 'http://127.0.0.1:8080'));
  t.throws(() => checkOrigin({ origin: 'http://127.0.0.1:8080' }, none, null), { code: 'origin_not_allowed' });
  t.throws(() => checkOrigin({ origin: 'http://a.test', host: 'a.test' }, none, 'http://127.0.0.1:8080'), { code: 'origin_not_allowed' });
  t.throws(() => checkOrigin({ origin: 'null' }, none, 'http://x'), { code: 'origin_not_allowed' });
  const long = checkOriginMessage(`http://${'a'.repeat(5000)}.test`);
  t.ok(long.length < 300, 'the refused origin is quoted short');
});

function checkOriginMessage(origin: string): string {
  try {
    checkOrigin({ origin }, new Set(), null);
    return '';
  } catch (err) {
    return (err as Error).message;
  }
}
