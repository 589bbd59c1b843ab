// /api/v1/approvals: the approval requests of held verify calls (reads any role, decisions by an
// Admin user token), and the event stream that says when they changed (approvals/event-stream.ts).
// MCP approvals have their own routes under /api/v1/mcp/approvals.
import { approvalDecideBody, approvalStatusQuery } from '../../../shared/verify-policy-schemas.js';
import type { ApprovalEventStreams } from '../../approvals/event-stream.js';
import { approvalOfTrace, decideApproval } from '../../approvals/store.js';
import { getApprovalView, listOpenViews } from '../../approvals/view.js';
import type { Deps } from '../../deps.js';
import { defineRoute, type Route } from '../../http/types.js';
import { actorOf } from '../actor.js';

export function approvalRoutes(deps: Deps, events: ApprovalEventStreams): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/approvals/events',
      summary: 'Server-sent events: the open approval requests changed (read them again)',
      auth: 'viewer',
      async handler(r) {
        const place = events.admit();
        return { stream: (res) => place.serve(r.principal.projectId, res) };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/approvals',
      summary: 'List open approval requests',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: { approvals: await listOpenViews(deps.sql, r.principal.projectId) } };
      },
    },
    {
      method: 'GET',
      path: '/api/v1/approvals/:id',
      summary: 'Read one approval request',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: await getApprovalView(deps.sql, r.principal.projectId, r.params.id!) };
      },
    },
    defineRoute({
      method: 'GET',
      path: '/api/v1/approvals/status',
      summary: 'The approval of a held verify call, by its trace',
      auth: 'viewer',
      query: approvalStatusQuery,
      async handler(r) {
        const traceId = r.query.trace_id;
        const a = await approvalOfTrace(deps.sql, r.principal.projectId, traceId);
        return {
          status: 200,
          body: {
            trace_id: traceId,
            approval_id: a.id,
            status: a.status,
            expires_at: a.expires_at,
            decided_at: a.decided_at,
            decided_by: a.decided_by,
            comment: a.comment,
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/approvals/:id/decide',
      summary: 'Approve or deny an approval request',
      auth: 'admin',
      body: approvalDecideBody,
      async handler(r) {
        const { body } = r;
        return {
          status: 200,
          body: await decideApproval(deps.sql, r.principal.projectId, r.params.id!, body.approved, body.comment ?? null, actorOf(r), {
            deciderNotRequester: deps.config.approvalDeciderNotRequester,
          }),
        };
      },
    }),
  ];
}
