// Prometheus metrics (prom-client), one registry per daemon instance: requests by route and
// status, their latency, trace write latency and batch size, where traces landed and the
// dead-letter queue's depth, and this daemon's database pool use.
import client from 'prom-client';
import type { Sql } from './db/connect.js';
import type { SetAsideKind } from './ledger/dlq.js';
import type { TracePersisted } from './ledger/dlq-outcome.js';
import type { TraceStoreStatus } from './ledger/trace-written.js';

export interface Metrics {
  readonly registry: client.Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  observeTraceBatch(size: number, seconds: number): void;
  observeTraceAppend(seconds: number): void;
  observeTracePersisted(to: TracePersisted, count: number): void;
  observeDlqReplayed(count: number): void;
  observeDlqSetAside(kind: SetAsideKind): void;
  /** The trace writer whose dead-letter queue the gauges report. */
  watchTraceStore(status: () => TraceStoreStatus): void;
}

export function createMetrics(sql: Sql, instanceId: string, poolMax: number): Metrics {
  const registry = new client.Registry();
  client.collectDefaultMetrics({ register: registry });
  const requests = new client.Counter({
    name: 'gateway_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'gateway_http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const appendLatency = new client.Histogram({
    name: 'gateway_trace_append_duration_seconds',
    help: 'Time from a trace being queued to its commit',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const batchLatency = new client.Histogram({
    name: 'gateway_trace_batch_commit_duration_seconds',
    help: 'Time to commit one trace batch',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
    registers: [registry],
  });
  const batchSize = new client.Histogram({
    name: 'gateway_trace_batch_size',
    help: 'Traces committed per transaction',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [registry],
  });
  new client.Gauge({
    name: 'gateway_db_pool_max',
    help: 'Configured maximum connections of this daemon',
    registers: [registry],
    collect() {
      this.set(poolMax);
    },
  });
  new client.Gauge({
    name: 'gateway_db_pool_connections',
    help: 'Open connections of this daemon by state (from pg_stat_activity)',
    labelNames: ['state'],
    registers: [registry],
    async collect() {
      this.reset();
      const rows = await sql<{ state: string | null; n: number }[]>`
        select state, count(*)::int as n from pg_stat_activity
        where application_name = ${`gatewayd:${instanceId}`} group by state`;
      for (const r of rows) this.set({ state: r.state ?? 'unknown' }, r.n);
    },
  });
  const persisted = new client.Counter({
    name: 'gateway_trace_persisted_total',
    help: 'Traces by where they landed: db, dlq (dead-letter queue) or none (refused, 503)',
    labelNames: ['to'],
    registers: [registry],
  });
  const replayed = new client.Counter({
    name: 'gateway_trace_dlq_replayed_total',
    help: 'Dead-lettered traces replayed into the ledger',
    registers: [registry],
  });
  const setAside = new client.Counter({
    name: 'gateway_trace_dlq_set_aside_total',
    help: 'Dead-letter records that could not be replayed and were set aside: corrupt (torn or damaged) or rejected (refused by the database)',
    labelNames: ['kind'],
    registers: [registry],
  });
  let traceStore: (() => TraceStoreStatus) | null = null;
  new client.Gauge({
    name: 'gateway_trace_dlq_depth',
    help: 'Traces in the dead-letter queue not yet replayed',
    registers: [registry],
    collect() {
      this.set(traceStore?.().dlqDepth ?? 0);
    },
  });
  new client.Gauge({
    name: 'gateway_trace_dlq_bytes',
    help: 'Size of the dead-letter queue file',
    registers: [registry],
    collect() {
      this.set(traceStore?.().dlqBytes ?? 0);
    },
  });
  new client.Gauge({
    name: 'gateway_trace_store_degraded',
    help: '1 while traces do not go straight to PostgreSQL (unreachable, queue not yet replayed, or queue not writable)',
    registers: [registry],
    collect() {
      this.set(traceStore?.().degraded ? 1 : 0);
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
    observeTracePersisted(to, count) {
      persisted.inc({ to }, count);
    },
    observeDlqReplayed(count) {
      replayed.inc(count);
    },
    observeDlqSetAside(kind) {
      setAside.inc({ kind });
    },
    watchTraceStore(status) {
      traceStore = status;
    },
  };
}
