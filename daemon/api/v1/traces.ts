// /api/v1/traces and /api/v1/export: the list (and lookup by id) and the CSV export for any role,
// reviewer actions, and the Admin-only reveal of a raw original.
import { exportQuery } from '../../../shared/export-schemas.js';
import { traceActionBody, traceListQuery } from '../../../shared/trace-schemas.js';
import { defineRoute, type Route } from '../../http/types.js';
import { recordTraceAction } from '../../traces/actions.js';
import { streamExport } from '../../traces/export.js';
import { listTraces } from '../../traces/list.js';
import { revealTrace } from '../../traces/reveal.js';
import type { Deps } from '../../deps.js';
import { actorOf } from '../actor.js';

export function traceRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/export',
      summary: 'Export traces as CSV or JSON lines',
      auth: 'viewer',
      query: exportQuery,
      async handler(r) {
        const { query: q } = r;
        return { stream: (res) => streamExport(deps.sql, r.principal.projectId, q, deps.config.exportRowCap, res) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/traces',
      summary: 'List traces',
      auth: 'viewer',
      query: traceListQuery,
      async handler(r) {
        const { query: q } = r;
        return { status: 200, body: await listTraces(deps.sql, r.principal.projectId, q) };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/traces/:trace_id/reveal',
      summary: 'Reveal the raw original of a trace (audit level full)',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: await revealTrace(deps.sql, deps.secretBox, r.principal.projectId, r.params.trace_id!, actorOf(r)) };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/traces/:trace_id/action',
      summary: 'A reviewer action on a trace',
      auth: 'viewer',
      allowedDuringStop: true,
      body: traceActionBody,
      async handler(r) {
        const { body } = r;
        return {
          status: 201,
          body: await recordTraceAction(
            deps.sql,
            r.principal.projectId,
            r.params.trace_id!,
            body.action,
            body.justification ?? null,
            actorOf(r),
          ),
        };
      },
    }),
  ];
}
