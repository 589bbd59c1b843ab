import t from 'tap';
import { Writable } from 'node:stream';
import { createLogger } from '../../daemon/log.js';
import { createMetrics } from '../../daemon/metrics.js';
import { createServer } from '../../daemon/http/server.js';
import type { Route } from '../../daemon/http/types.js';
import { startTestGateway } from '../helpers/gateway.js';
import { migratedDatabase } from '../helpers/project.js';

t.test('request ids: one per request, in the header and in every error body', async (t) => {
  const gw = await startTestGateway(t);
  const a = await gw.api('GET', '/api/v1/nothing-here');
  const b = await gw.api('GET', '/api/v1/nothing-here');
  t.equal(a.status, 404);
  t.equal(a.body.error.code, 'not_found');
  t.match(a.headers.get('x-request-id'), /^[0-9a-f-]{36}$/);
  t.equal(a.body.error.request_id, a.headers.get('x-request-id'));
  t.not(a.headers.get('x-request-id'), b.headers.get('x-request-id'));
  const mine = await gw.api('GET', '/api/v1/project', { headers: { 'x-request-id': 'client-chosen-123' } });
  t.equal(mine.headers.get('x-request-id'), 'client-chosen-123', 'a safe client id is kept for correlation');
  const unsafe = await gw.api('GET', '/api/v1/project', { headers: { 'x-request-id': 'bad id\twith tab' } });
  t.not(unsafe.headers.get('x-request-id'), 'bad id\twith tab');
});

t.test('error shapes: 401, 404, 405, 413, 415, 400 with named fields', async (t) => {
  const gw = await startTestGateway(t, { env: { GATEWAY_BODY_LIMIT_BYTES: '1024' } });
  const noAuth = await gw.api('GET', '/api/v1/project', { token: null });
  t.equal(noAuth.status, 401);
  t.same(Object.keys(noAuth.body.error).sort(), ['code', 'message', 'request_id']);
  t.equal(noAuth.body.error.code, 'unauthorized');
  t.equal((await gw.api('GET', '/api/v1/project', { token: 'ggp_' + 'x'.repeat(43) })).status, 401, 'unknown token');
  t.equal((await gw.api('PUT', '/api/v1/project')).body.error.code, 'method_not_allowed');
  const big = await gw.api('POST', '/api/v1/keys', { body: { name: 'x'.repeat(2000), role: 'viewer' } });
  t.equal(big.status, 413);
  t.equal(big.body.error.code, 'payload_too_large');
  const text = await gw.api('POST', '/api/v1/keys', { body: 'name=x', headers: { 'content-type': 'text/plain' } });
  t.equal(text.status, 415);
  const notJson = await gw.api('POST', '/api/v1/keys', { body: '{"name":' });
  t.equal(notJson.status, 400);
  t.equal(notJson.body.error.code, 'validation_error');
  const invalid = await gw.api('POST', '/api/v1/keys', { body: { name: '', role: 'owner', extra: 1 } });
  t.equal(invalid.status, 400);
  t.equal(invalid.body.error.code, 'validation_error');
  t.match(invalid.body.error.message, /name/);
  t.match(invalid.body.error.message, /role/);
  t.match(invalid.body.error.message, /extra/);
  const [{ n }] = await gw.db`select count(*)::int as n from credentials`;
  t.equal(n, 1, 'refusals wrote nothing (only the bootstrap admin token exists)');
});

t.test('an unexpected error is a 500 internal_error with no stack, SQL or message text', async (t) => {
  const { sql } = await migratedDatabase(t);
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(c, _e, d) {
        lines.push(String(c));
        d();
      },
    }),
  );
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/boom',
      summary: 'Throws',
      auth: 'public',
      async handler() {
        throw new Error('select secret_column from users where password = $1');
      },
    },
    {
      method: 'GET',
      path: '/sql-boom',
      summary: 'Fails in SQL',
      auth: 'public',
      async handler() {
        await sql`select * from no_such_table`;
        return { status: 200 };
      },
    },
  ];
  const server = createServer(routes, {
    sql,
    log,
    metrics: createMetrics(sql, 'x', 1),
    bodyLimitBytes: 1000,
    degradedSubsystems: () => [],
  });
  await new Promise<void>((r) => server.server.listen(0, '127.0.0.1', r));
  t.teardown(() => server.close(1000));
  const port = (server.server.address() as { port: number }).port;
  for (const path of ['/boom', '/sql-boom']) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`);
    const text = await res.text();
    t.equal(res.status, 500);
    const body = JSON.parse(text);
    t.equal(body.error.code, 'internal_error');
    t.equal(body.error.request_id, res.headers.get('x-request-id'));
    t.notMatch(text, /secret_column|no_such_table|select|at .*\.js/i, 'nothing of the cause leaks');
  }
  t.ok(
    lines.some((l) => l.includes('unexpected error') && l.includes('"reqId"')),
    'the cause is logged with the request id',
  );
});

t.test('log lines carry the request id and never the token', async (t) => {
  const gw = await startTestGateway(t);
  const res = await gw.api('GET', '/api/v1/project');
  const id = res.headers.get('x-request-id')!;
  const line = gw.logLines.find((l) => l.includes(id));
  t.ok(line, 'a log line names the request');
  t.ok(
    gw.logLines.every((l) => !l.includes(gw.adminToken)),
    'no token in any log line',
  );
});

t.test('pino redaction covers authorization headers, tokens and prompt text', async (t) => {
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(c, _e, d) {
        lines.push(String(c));
        d();
      },
    }),
  );
  log.info(
    {
      req: { headers: { authorization: 'Bearer ggp_secret' } },
      token: 'ggu_secret',
      prompt: 'my card 4111',
      input: { prompt: 'nested secret' },
    },
    'x',
  );
  const out = lines.join('');
  t.notMatch(out, /ggp_secret|ggu_secret|4111|nested secret/);
  t.match(out, /\[redacted\]/);
});
