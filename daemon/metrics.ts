// Prometheus metrics (prom-client), one registry per daemon instance: requests by route and
// status, their latency, trace write latency and batch size, and this daemon's database pool use.
import client from 'prom-client';
import type { Sql } from './db/connect.js';

export interface Metrics {
  readonly registry: client.Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeTraceBatch(size: number, seconds: number): void;
  observeTraceAppend(seconds: number): void;
}

export function createMetrics(sql: Sql, instanceId: string, poolMax: number): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({ name: 'gateway_http_requests_total', help: 'HTTP requests by route and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
  const latency = new client.Histogram({ name: 'gateway_http_request_duration_seconds', help: 'HTTP request latency by route and status', labelNames: ['method', 'route', 'status'], buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry] });
  const appendLatency = new client.Histogram({ name: 'gateway_trace_append_duration_seconds', help: 'Time from a trace being queued to its commit', buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1], registers: [registry] });
  const batchLatency = new client.Histogram({ name: 'gateway_trace_batch_commit_duration_seconds', help: 'Time to commit one trace batch', buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1], registers: [registry] });
  const batchSize = new client.Histogram({ name: 'gateway_trace_batch_size', help: 'Traces committed per transaction', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512], registers: [registry] });
  new client.Gauge({ name: 'gateway_db_pool_max', help: 'Configured maximum connections of this daemon', registers: [registry], collect() { this.set(poolMax); } });
  new client.Gauge({
    name: 'gateway_db_pool_connections', help: 'Open connections of this daemon by state (from pg_stat_activity)', labelNames: ['state'], registers: [registry],
    async collect() {
      this.reset();
      const rows = await sql<{ state: string | null; n: number }[]>`
        select state, count(*)::int as n from pg_stat_activity
        where application_name = ${`gatewayd:${instanceId}`} group by state`;
      for (const r of rows) this.set({ state: r.state ?? 'unknown' }, r.n);
    },
  });
  return {
    registry,
    observeRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) };
      requests.inc(labels);
      latency.observe(labels, seconds);
    },
    observeTraceBatch(size, seconds) {
      batchSize.observe(size);
      batchLatency.observe(seconds);
    },
    observeTraceAppend(seconds) {
      appendLatency.observe(seconds);
    },
  };
}
