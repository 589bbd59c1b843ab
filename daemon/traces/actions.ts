// Reviewer actions on a trace (WARN_PROCEEDED, JUSTIFIED): an append-only row that the trace list
// shows as userAction/justification, and an entry of the tamper-evident admin-action log.
import { randomUUID } from 'node:crypto';
import { GatewayError } from '../../shared/errors.js';
import type { Sql } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from '../project/admin-actions.js';
import { isTraceId } from './query.js';

export interface ReviewerAction {
  id: string;
  trace_id: string;
  action: 'WARN_PROCEEDED' | 'JUSTIFIED';
  justification: string | null;
  actor_id: string;
  created_at: string;
}

export async function recordTraceAction(
  sql: Sql,
  projectId: string,
  traceId: string,
  action: ReviewerAction['action'],
  justification: string | null,
  actor: Actor,
): Promise<ReviewerAction> {
  if (!isTraceId(traceId)) throw new GatewayError('not_found', 'No trace with this id.');
  return sql.begin(async (tx) => {
    const [trace] = await tx`select id from traces where id = ${traceId} and project_id = ${projectId}`;
    if (!trace) throw new GatewayError('not_found', 'No trace with this id.');
    const actorId = actorLabel(actor);
    const [row] = await tx<(Omit<ReviewerAction, 'created_at'> & { created_at: Date })[]>`
      insert into trace_actions (id, project_id, trace_id, action, justification, actor_id, credential_id)
      values (${randomUUID()}, ${projectId}, ${traceId}, ${action}, ${justification}, ${actorId}, ${actor.principal?.credentialId ?? null})
      returning id, trace_id, action, justification, actor_id, created_at`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'trace.reviewer_action',
        activity: 'update',
        targetType: 'trace',
        targetId: traceId,
        details: { action, justification, trace_action_id: row!.id },
      }),
    ]);
    return { ...row!, created_at: row!.created_at.toISOString() };
  });
}
