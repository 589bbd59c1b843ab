// The MCP template and registry routes on the daemon's own HTTP front, beside a test gateway and on
// its database (credentials, roles, rate limit), for as long as the routes table does not list them.
import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { mcpCatalogRoutes } from '../../daemon/api/v1/mcp-catalog.js';
import { createServer } from '../../daemon/http/server.js';
import { createLogger } from '../../daemon/log.js';
import { createMetrics } from '../../daemon/metrics.js';
import { startTestGateway, type ApiResponse, type TestGateway } from './gateway.js';

export interface CatalogServer {
  readonly gw: TestGateway;
  readonly url: string;
  call(method: string, route: string, options?: { token?: string | null; body?: unknown }): Promise<ApiResponse>;
}

export async function startCatalogServer(t: Test): Promise<CatalogServer> {
  const gw = await startTestGateway(t);
  const log = createLogger('info', new Writable({ write(_c, _e, done) { done(); } }));
  const sql = gw.gateway.sql;
  const server = createServer(mcpCatalogRoutes({ log }), { sql, log, metrics: createMetrics(sql, 'catalog-test', 1), bodyLimitBytes: 1 << 20, degradedSubsystems: () => [] });
  await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => server.close(1000));
  const url = `http://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  return {
    gw,
    url,
    async call(method, route, options = {}) {
      const headers: Record<string, string> = {};
      const token = options.token === undefined ? gw.adminToken : options.token;
      if (token) headers.authorization = `Bearer ${token}`;
      if (options.body !== undefined) headers['content-type'] = 'application/json';
      const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      const res = await fetch(url + route, { method, headers, body });
      const text = await res.text();
      let parsed: unknown = null;
      try { parsed = text ? JSON.parse(text) : null; } catch { parsed = null; }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
  };
}
