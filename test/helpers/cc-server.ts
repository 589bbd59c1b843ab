// The command center and webhook routes on the daemon's own HTTP front, beside a test gateway and
// on its database and trace writer (credentials, roles, emergency stop, rate limit), for as long
// as the routes table does not list them.
import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { commandCenterRoutes } from '../../daemon/api/v1/command-center.js';
import { webhookRoutes } from '../../daemon/api/v1/webhooks.js';
import { createServer } from '../../daemon/http/server.js';
import { createLogger } from '../../daemon/log.js';
import { createMetrics } from '../../daemon/metrics.js';
import { startTestGateway, type ApiResponse, type GatewayOptions, type TestGateway } from './gateway.js';

export interface CcServer {
  readonly gw: TestGateway;
  readonly url: string;
  call(method: string, route: string, options?: { token?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<ApiResponse>;
}

export async function startCcServer(t: Test, options: GatewayOptions = {}): Promise<CcServer> {
  const gw = await startTestGateway(t, options);
  const log = createLogger('info', new Writable({ write(_c, _e, done) { done(); } }));
  const { sql, writer } = gw.gateway;
  const routes = [...commandCenterRoutes({ sql, log }), ...webhookRoutes({ sql, writer })];
  const server = createServer(routes, { sql, log, metrics: createMetrics(sql, 'cc-test', 1), bodyLimitBytes: 1 << 20, degradedSubsystems: () => writer.degradedSubsystems() });
  await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close(1000));
  const url = `http://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  return {
    gw,
    url,
    async call(method, route, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers };
      const token = opts.token === undefined ? gw.adminToken : opts.token;
      if (token) headers.authorization = `Bearer ${token}`;
      if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
      const body = opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body);
      const res = await fetch(url + route, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = null;
      try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
  };
}
