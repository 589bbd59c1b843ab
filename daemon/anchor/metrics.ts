// Anchoring gauges on the daemon's /metrics registry, read from the epoch rows at scrape time.
import client from 'prom-client';
import type { Sql } from '../db/connect.js';
import { anchorHealth, type AnchorSettings } from './status.js';

export function registerAnchorMetrics(registry: client.Registry, sql: Sql, settings: AnchorSettings | null): void {
  new client.Gauge({
    name: 'gateway_anchor_pending_epochs',
    help: 'Anchor epochs not yet anchored (PENDING, SUBMITTED or FAILED)',
    registers: [registry],
    async collect() {
      const [row] = await sql<{ n: number }[]>`select count(*)::int as n from anchor_epochs where state <> 'ANCHORED'`;
      this.set(row!.n);
    },
  });
  new client.Gauge({
    name: 'gateway_anchor_last_success_timestamp_seconds',
    help: 'When the newest anchored epoch was anchored (0: never)',
    registers: [registry],
    async collect() {
      const [row] = await sql<
        { t: number | null }[]
      >`select extract(epoch from max(anchored_at))::float8 as t from anchor_epochs where state = 'ANCHORED'`;
      this.set(row?.t ?? 0);
    },
  });
  new client.Gauge({
    name: 'gateway_anchor_degraded',
    help: '1 while an epoch waits with an error or FAILED (see /healthz anchor.reason)',
    registers: [registry],
    async collect() {
      this.set((await anchorHealth(sql, settings)).state === 'degraded' ? 1 : 0);
    },
  });
}
