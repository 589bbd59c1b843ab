// GET /healthz (no credentials) and GET /metrics (Prometheus text format). /healthz names a
// degraded subsystem (the trace store while traces go to the dead-letter queue) without failing.
import type { AnchorService } from '../../anchor/service.js';
import { anchorHealth } from '../../anchor/status.js';
import { availabilityOf } from '../../db/availability.js';
import type { Route } from '../../http/types.js';
import type { Deps } from '../../deps.js';

async function databaseUp(deps: Deps): Promise<boolean> {
  if (availabilityOf(deps.sql)?.down) return false; // its probe asks; a health check need not wait on the pool
  try {
    await Promise.race([deps.sql`select 1`, new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2_000).unref())]);
    return true;
  } catch {
    return false;
  }
}

/** Anchoring's state, when on in this daemon; unreadable (database down) counts as nothing to add. */
async function anchorPart(deps: Deps, anchor: AnchorService): Promise<{ anchor?: { state: string; reason: string | null } }> {
  if (!anchor.settings) return {};
  const health = await anchorHealth(deps.sql, anchor.settings).catch(() => null);
  return health ? { anchor: health } : {};
}

export function healthRoutes(deps: Deps, anchor: AnchorService): Route[] {
  return [
    {
      method: 'GET',
      path: '/healthz',
      summary: 'Health of the daemon and its database',
      auth: 'public',
      async handler() {
        const up = await databaseUp(deps);
        const degraded = deps.writer.degradedSubsystems();
        if (!up)
          return { status: 503, body: { status: 'unavailable', failing: ['database'], ...(degraded.length > 0 ? { degraded } : {}) } };
        // Anchoring never fails the daemon: a node that is down or out of funds only degrades it.
        const anchoring = await anchorPart(deps, anchor);
        if (anchoring.anchor?.state === 'degraded') degraded.push('anchor');
        if (degraded.length > 0) return { status: 200, body: { status: 'degraded', degraded, ...anchoring } };
        return { status: 200, body: { status: 'ok', ...anchoring } };
      },
    },
    {
      method: 'GET',
      path: '/metrics',
      summary: 'Prometheus metrics',
      auth: 'public',
      async handler() {
        const text = await deps.metrics.registry.metrics();
        return {
          stream: async (res) => {
            res.statusCode = 200;
            res.setHeader('Content-Type', deps.metrics.registry.contentType);
            res.end(text);
          },
        };
      },
    },
  ];
}
