// The classes of malformed input issue 24 found answered with a 5xx or without the error object
// (items 1 and 2), each shown on the route it was found on and answered at its root, for every
// route, by the route table and body reading (server.ts, read-body.ts, url-input.ts, validate.ts):
// an encoding no route decodes (415), bytes that are not UTF-8 (400), a declared query parameter
// given twice (400), a header the route does not read (ignored), a 1 MiB key (a short message),
// an expectation Node would refuse bare (417) and a 405 from an upstream without a body (the error
// object, Allow kept). Every refusal writes nothing.
import zlib from 'node:zlib';
import t, { type Test } from 'tap';
import { startTestGateway, type ApiResponse, type TestGateway } from '../helpers/gateway.js';
import { activeServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { listen, startModernMcpServer } from '../helpers/mcp-servers.js';
import { parseRaw, rawExchange } from '../helpers/raw-http.js';
import { rowCounts } from '../helpers/row-counts.js';

function errorObject(t: Test, res: Pick<ApiResponse, 'status' | 'headers' | 'body'>, status: number, code: string, what: string): void {
  t.equal(res.status, status, `${what}: status`);
  t.equal(res.body?.error?.code, code, `${what}: code`);
  t.equal(res.body?.error?.request_id, res.headers.get('x-request-id'), `${what}: request id`);
}

/** POST with raw bytes as the body (fetch sends them as they are). */
async function postBytes(gw: TestGateway, path: string, body: Buffer, headers: Record<string, string> = {}) {
  const res = await fetch(gw.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json', ...headers },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? JSON.parse(text) : null };
}

t.test("the issue's instances: each a 4xx with the error object, nothing written", async (t) => {
  const gw = await startTestGateway(t);
  const agent = (await gw.api('POST', '/api/v1/agents', { body: { name: 'a' } })).body;
  t.equal((await gw.api('POST', `/api/v1/agents/${agent.id}/approve`, { body: {} })).status, 200);
  const before = await rowCounts(gw.db);

  const gzip = await postBytes(gw, '/api/v1/mcp/approvals/x/decide', zlib.gzipSync('{"approved":true}'), { 'content-encoding': 'gzip' });
  errorObject(t, gzip, 415, 'unsupported_media_type', 'decide with Content-Encoding: gzip');
  t.match(gzip.body.error.message, /Content-Encoding "gzip" is not accepted/);
  for (const encoding of ['deflate', 'br', 'x-unknown', 'gzip, identity'])
    errorObject(
      t,
      await postBytes(gw, `/api/v1/agents/${agent.id}/pause`, Buffer.from('{}'), { 'content-encoding': encoding }),
      415,
      'unsupported_media_type',
      encoding,
    );

  const invalid = Buffer.concat([Buffer.from('{"reason":"'), Buffer.from([0xe0, 0x80, 0xaf]), Buffer.from('"}')]);
  const utf8 = await postBytes(gw, `/api/v1/agents/${agent.id}/pause`, invalid);
  errorObject(t, utf8, 400, 'validation_error', 'pause with a reason holding e0 80 af');
  t.match(utf8.body.error.message, /not valid UTF-8/);
  const inKey = Buffer.concat([Buffer.from('{"name":"x","metadata":{"'), Buffer.from([0xff]), Buffer.from('":1}}')]);
  errorObject(t, await postBytes(gw, '/api/v1/agents', inKey), 400, 'validation_error', 'a key holding 0xff');

  const repeated = await gw.api('GET', '/api/v1/agents?limit=1&limit=&limit=1e9');
  errorObject(t, repeated, 400, 'validation_error', 'a declared query parameter given three times');
  t.match(repeated.body.error.message, /query\.limit: given more than once/);
  errorObject(t, await gw.api('GET', '/api/v1/agents?limit='), 400, 'validation_error', 'an empty limit');
  errorObject(t, await gw.api('GET', '/api/v1/agents?cursor=%e0%80%af'), 400, 'validation_error', 'a query value that is not UTF-8');
  errorObject(
    t,
    await gw.api('POST', '/api/v1/mcp/approvals/x/decide?id=a&id=&limit=1e9&id=b', { body: { approved: 'yes' } }),
    400,
    'validation_error',
    'decide (no query declared: repeated parameters ignored) with a bad body',
  );
  t.same(await rowCounts(gw.db), before, 'nothing written');
  t.equal((await gw.api('GET', `/api/v1/agents/${agent.id}`)).body.status, 'ACTIVE', 'the agent was not paused');
  t.notOk(
    gw.logLines.some((l) => l.includes('"level":50')),
    'no unexpected error logged',
  );
});

t.test('a header the route does not read is ignored; the same header twice too', async (t) => {
  const gw = await startTestGateway(t);
  const ext = (await gw.api('POST', '/api/v1/extensions', { body: { name: 'e' } })).body;
  const event = { event_type: 'prompt.sent', source: 'browser', detail: { url: 'https://example.com' } };
  const unread: Record<string, string>[] = [
    { 'mcp-session-id': 'x' },
    { 'mcp-session-id': 'a, b', 'mcp-protocol-version': '2026-07-28', 'x-agent-id': 'z' },
  ];
  for (const headers of unread) {
    const res = await gw.api('POST', '/api/v1/webhooks/ingest', { token: ext.api_key, body: event, headers });
    t.equal(res.status, 202, JSON.stringify(headers));
  }
  const port = Number(new URL(gw.url).port);
  const body = JSON.stringify(event);
  const twice = parseRaw(
    await rawExchange(
      port,
      `POST /api/v1/webhooks/ingest HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ext.api_key}\r\nContent-Type: application/json\r\n`
        + `Mcp-Session-Id: a\r\nMcp-Session-Id: b\r\nIdempotency-Key: k1\r\nIdempotency-Key: k2\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`,
    ),
  );
  t.equal(twice?.status, 202, 'repeated headers: the event is taken');
});

t.test('a 1 MiB key: the message quotes 64 characters of it, the answer stays small', async (t) => {
  const gw = await startTestGateway(t);
  const key = 'k'.repeat(1024 * 1024);
  const before = await rowCounts(gw.db);
  for (const [path, body] of [
    ['/api/v1/keys', { name: 'x', role: 'viewer', [key]: 1 }],
    ['/api/v1/mcp/emergency-stop', { scope: 'server', target_id: 'x', [key]: 1 }],
  ] as const) {
    const res = await gw.api('POST', path, { body });
    errorObject(t, res, 400, 'validation_error', path);
    t.ok(res.text.length < 600, `${path}: ${res.text.length} bytes of answer`);
    t.match(res.body.error.message, `Unrecognized key: "${'k'.repeat(64)}"…`);
  }
  const many = await gw.api('GET', `/api/v1/notifications/deliveries?${Array.from({ length: 500 }, (_, i) => `p${i}=1`).join('&')}`);
  t.ok(many.text.length < 2000, `500 unknown query parameters: ${many.text.length} bytes of answer`);
  t.same(await rowCounts(gw.db), before, 'nothing written');
});

t.test('an expectation other than 100-continue and CONNECT get the error object, not a bare answer', async (t) => {
  const gw = await startTestGateway(t);
  const port = Number(new URL(gw.url).port);
  const expect = parseRaw(
    await rawExchange(
      port,
      `POST /api/v1/agents HTTP/1.1\r\nHost: x\r\nExpect: x-unknown\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`,
    ),
  );
  t.equal(expect?.status, 417);
  t.equal(expect?.body?.error?.code, 'expectation_failed');
  t.equal(expect?.body?.error?.request_id, expect?.headers['x-request-id']);
  const connect = parseRaw(await rawExchange(port, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
  t.equal(connect?.status, 405);
  t.equal(connect?.body?.error?.code, 'method_not_allowed');
  t.match(connect?.headers.allow, /GET/);
  const put = await gw.api('PUT', '/api/v1/agents');
  errorObject(t, put, 405, 'method_not_allowed', 'PUT on a path that takes GET and POST');
  t.equal(put.headers.get('allow'), 'GET, POST');
});

t.test('GET on the proxy of a server that offers no event stream: 405 with Allow and the error object', async (t) => {
  const px = await startProxyGateway(t);
  const mcp = await startModernMcpServer(t);
  // The upstream answers a GET with a bare 405 (Allow, no body), as stateless servers do.
  const upstream = await listen(t, async (req, res, body) => {
    if (req.method === 'GET') {
      res.writeHead(405, { allow: 'POST' });
      res.end();
      return;
    }
    const answer = await fetch(mcp.url, {
      method: req.method,
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([k, v]) => typeof v === 'string' && /^(accept|content-type|mcp-.*)$/.test(k)) as [
          string,
          string,
        ][],
      ),
      body: req.method === 'POST' ? new Uint8Array(body) : undefined,
    });
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  const server = await activeServer(px, upstream.url, {});
  const res = await px.gw.api('GET', `/api/v1/mcp/proxy/${server.id}`, { headers: { accept: 'text/event-stream' } });
  errorObject(t, res, 405, 'method_not_allowed', 'GET on the proxy');
  t.equal(res.headers.get('allow'), 'POST', "the upstream's Allow is kept");
  t.match(res.body.error.message, /does not take GET/);
});
