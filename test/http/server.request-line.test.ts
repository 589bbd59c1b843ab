// The line each request ends with names the request and its route first, whether or not anything
// logged through the request's own logger before (which is made only when something does).
import { Writable } from 'node:stream';
import t from 'tap';
import { createServer } from '../../daemon/http/server.js';
import type { Route } from '../../daemon/http/types.js';
import { createLogger } from '../../daemon/log.js';

t.test('the request line is the same with and without a log line of the handler', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(c, _e, done) {
        lines.push(JSON.parse(String(c)));
        done();
      },
    }),
  );
  const route = (path: string, logs: boolean): Route => ({
    method: 'GET',
    path,
    summary: path,
    auth: 'public',
    handler: async ({ ctx }) => {
      if (logs) ctx.log.info({ token: 'ggp_secret' }, 'handler line');
      return { status: 200, body: { ok: true } };
    },
  });
  const gw = createServer([route('/quiet', false), route('/talks', true)], {
    sql: undefined as never,
    log,
    metrics: { observeRequest: () => undefined } as never,
    degradedSubsystems: () => [],
    bodyLimitBytes: 1024,
  });
  await new Promise<void>((resolve) => gw.server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => gw.close(1000));
  const { port } = gw.server.address() as { port: number };
  for (const path of ['/quiet', '/talks']) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { 'x-request-id': `req-${path.slice(1)}-0001` } });
    t.equal(res.status, 200);
  }
  const requestLines = lines.filter((l) => l.msg === 'request');
  t.equal(requestLines.length, 2);
  for (const [i, path] of ['/quiet', '/talks'].entries()) {
    const l = requestLines[i]!;
    t.same(Object.keys(l).slice(-6), ['reqId', 'route', 'method', 'status', 'ms', 'msg'], `${path}: the fields in order`);
    t.match(l, { reqId: `req-${path.slice(1)}-0001`, route: path, method: 'GET', status: 200 });
  }
  const handlerLine = lines.find((l) => l.msg === 'handler line')!;
  t.match(handlerLine, { reqId: 'req-talks-0001', route: '/talks', token: '[redacted]' }, 'the handler logs through the request logger');
});
