// GET /healthz (no credentials) and GET /metrics (Prometheus text format). /healthz names a
// degraded subsystem (the trace store while traces go to the dead-letter queue) without failing.
import type { Route } from '../../http/types.js';
import type { Deps } from '../deps.js';

async function databaseUp(deps: Deps): Promise<boolean> {
  try {
    await Promise.race([
      deps.sql`select 1`,
      new Promise((_, reject) => setTimeout(() => reject(new Error('timeout')), 2_000).unref()),
    ]);
    return true;
  } catch {
    return false;
  }
}

export function healthRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'GET', path: '/healthz', auth: 'public',
      async handler() {
        const up = await databaseUp(deps);
        const degraded = deps.writer.degradedSubsystems();
        if (!up) return { status: 503, body: { status: 'unavailable', failing: ['database'], ...(degraded.length > 0 ? { degraded } : {}) } };
        if (degraded.length > 0) return { status: 200, body: { status: 'degraded', degraded } };
        return { status: 200, body: { status: 'ok' } };
      },
    },
    {
      method: 'GET', path: '/metrics', auth: 'public',
      async handler() {
        const text = await deps.metrics.registry.metrics();
        return { stream: async (res) => {
          res.statusCode = 200;
          res.setHeader('Content-Type', deps.metrics.registry.contentType);
          res.end(text);
        } };
      },
    },
  ];
}
