// /api/v1/traces: the list (and lookup by id) for any role, and reviewer actions.
import { traceActionBody, traceListQuery } from '../../../shared/trace-schemas.js';
import type { Route } from '../../http/types.js';
import { parseInput } from '../../http/validate.js';
import { recordTraceAction } from '../../traces/actions.js';
import { listTraces } from '../../traces/list.js';
import { actorOf, type Deps } from '../deps.js';

export function traceRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'GET', path: '/api/v1/traces', auth: 'viewer',
      async handler(r) {
        const q = parseInput(traceListQuery, Object.fromEntries(r.query));
        return { status: 200, body: await listTraces(deps.sql, r.principal.projectId, q) };
      },
    },
    {
      method: 'POST', path: '/api/v1/traces/:trace_id/action', auth: 'viewer', allowedDuringStop: true,
      async handler(r) {
        const body = parseInput(traceActionBody, r.body);
        return { status: 201, body: await recordTraceAction(deps.sql, r.principal.projectId, r.params.trace_id!, body.action, body.justification ?? null, actorOf(r)) };
      },
    },
  ];
}
