// GET /api/v1/command-center?range=1h|6h|24h|7d|30d (any role): the dashboard's one aggregated read.
import { commandCenterQuery } from '../../../shared/command-center-schemas.js';
import { commandCenter } from '../../command-center/command-center.js';
import { defineRoute, type Route } from '../../http/types.js';
import type { Deps } from '../../deps.js';

export function commandCenterRoutes(deps: Pick<Deps, 'sql' | 'log'>): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/command-center',
      summary: 'Command center: KPIs and counters for a window',
      auth: 'viewer',
      query: commandCenterQuery,
      async handler(r) {
        // Unknown keys are dropped by the schema, so `time_range=7d` alone answers the default 24h window.
        const { query: q } = r;
        const body = await commandCenter(deps.sql, r.principal.projectId, q.range, new Date(), (err) =>
          deps.log.warn({ err }, 'command center: expired minute counters not deleted; retried within the hour'),
        );
        return { status: 200, body };
      },
    }),
  ];
}
