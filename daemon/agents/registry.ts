// The agent registry: register, read, update metadata, and move through the lifecycle. Every
// status change goes through transition(), which checks the lifecycle table, and is recorded as a
// trace in the same transaction (EU AI Act Art. 12: lifecycle events are always captured).
import { createId } from '@paralleldrive/cuid2';
import type { z } from 'zod';
import type { agentListQuery, agentPatchBody, agentRegisterBody } from '../../shared/agent-schemas.js';
import { GatewayError } from '../../shared/errors.js';
import type { Sql, Tx } from '../db/connect.js';
import { appendAdmin, appendTraces } from '../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from '../project/admin-actions.js';
import { DEFAULT_PROFILE, PROFILE_MODELS } from './capability.js';
import { nextStatus, operationTo, type AgentOperation, type AgentStatus } from './lifecycle.js';
import { presentAgent, type AgentRecord, type AgentRow } from './present.js';

export type RegisterInput = z.infer<typeof agentRegisterBody>;
export type PatchInput = z.infer<typeof agentPatchBody>;
export type ListQuery = z.infer<typeof agentListQuery>;

const JSON_COLUMNS = new Set([
  'tags',
  'permissions',
  'infrastructure_permissions',
  'permitted_tools',
  'fria_assessment',
  'transparency_disclosure',
  'capability_model',
]);

function columns(tx: Tx | Sql, values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, JSON_COLUMNS.has(k) && v !== null ? tx.json(v as never) : v]),
  );
}

async function recordLifecycle(
  tx: Tx,
  projectId: string,
  agentId: string,
  operation: string,
  from: AgentStatus | null,
  to: AgentStatus,
  reason: string | null,
  actor: Actor,
): Promise<void> {
  const [project] = await tx<{ attestation_enabled: boolean }[]>`select attestation_enabled from projects where id = ${projectId}`;
  await appendTraces(tx, projectId, [
    {
      traceType: 'AGENT_LIFECYCLE',
      decision: 'POLICY_CHANGE',
      actionName: `agent.${operation}`,
      reason: `agent ${operation}: ${from ?? '(new)'} -> ${to} by ${actorLabel(actor)}`,
      environment: 'prod',
      agentId,
      content: {
        agent_id: agentId,
        operation,
        from,
        to,
        reason,
        actor: { kind: actor.principal?.kind ?? 'system', id: actorLabel(actor), credential_id: actor.principal?.credentialId ?? null },
        request_id: actor.requestId,
        anchor: project?.attestation_enabled ?? false,
      },
    },
  ]);
}

export async function registerAgent(sql: Sql, projectId: string, input: RegisterInput, actor: Actor): Promise<AgentRecord> {
  const profile = input.protection_profile ?? DEFAULT_PROFILE;
  return sql.begin(async (tx) => {
    const id = createId();
    const [row] = await tx<AgentRow[]>`
      insert into agents ${tx(columns(tx, { ...input, id, project_id: projectId, protection_profile: profile, capability_model: PROFILE_MODELS[profile], created_by: actorLabel(actor) }))}
      returning *`;
    await recordLifecycle(tx, projectId, id, 'register', null, 'PENDING_APPROVAL', null, actor);
    return presentAgent(row!);
  });
}

export async function getAgent(sql: Sql | Tx, projectId: string, id: string): Promise<AgentRecord> {
  const [row] = await sql<AgentRow[]>`select * from agents where id = ${id} and project_id = ${projectId}`;
  if (!row) throw new GatewayError('not_found', 'No agent with this id.');
  return presentAgent(row);
}

export async function listAgents(
  sql: Sql,
  projectId: string,
  q: ListQuery,
): Promise<{ agents: AgentRecord[]; next_cursor: string | null }> {
  const rows = await sql<AgentRow[]>`
    select * from agents where project_id = ${projectId}
      ${q.status ? sql`and status = ${q.status}` : sql``}
      ${q.risk_classification ? sql`and risk_classification = ${q.risk_classification}` : sql``}
      ${q.cursor ? sql`and (created_at, id) > (select created_at, id from agents where id = ${q.cursor} and project_id = ${projectId})` : sql``}
    order by created_at, id limit ${q.limit + 1}`;
  const page = rows.slice(0, q.limit);
  return { agents: page.map(presentAgent), next_cursor: rows.length > q.limit ? page.at(-1)!.id : null };
}

async function lockAgent(tx: Tx, projectId: string, id: string): Promise<AgentRow> {
  const [row] = await tx<AgentRow[]>`select * from agents where id = ${id} and project_id = ${projectId} for update`;
  if (!row) throw new GatewayError('not_found', 'No agent with this id.');
  return row;
}

async function applyTransition(
  tx: Tx,
  projectId: string,
  row: AgentRow,
  operation: AgentOperation,
  reason: string | null,
  actor: Actor,
): Promise<AgentRow> {
  const to = nextStatus(row.status, operation);
  if (to === null) {
    throw new GatewayError('agent_transition_invalid', `Cannot ${operation} an agent in status ${row.status}.`);
  }
  if (operation === 'approve' && row.risk_classification === 'UNACCEPTABLE') throw new GatewayError('agent_risk_prohibited');
  const suspendedReason = to === 'SUSPENDED' ? reason : null;
  const [updated] = await tx<AgentRow[]>`
    update agents set status = ${to}, suspended_reason = ${suspendedReason}, status_changed_at = now(), updated_at = now()
    where id = ${row.id} returning *`;
  await recordLifecycle(tx, projectId, row.id, operation, row.status, to, reason, actor);
  return updated!;
}

export async function transitionAgent(
  sql: Sql,
  projectId: string,
  id: string,
  operation: AgentOperation,
  reason: string | null,
  actor: Actor,
): Promise<AgentRecord> {
  return sql.begin(async (tx) =>
    presentAgent(await applyTransition(tx, projectId, await lockAgent(tx, projectId, id), operation, reason, actor)),
  );
}

/**
 * Metadata update. A `status` follows the lifecycle table exactly like the transition routes (it
 * is the same code): a status the table cannot reach from the current one refuses the whole update.
 */
export async function updateAgent(sql: Sql, projectId: string, id: string, patch: PatchInput, actor: Actor): Promise<AgentRecord> {
  return sql.begin(async (tx) => {
    let row = await lockAgent(tx, projectId, id);
    const { status, suspended_reason: suspendedReason, ...fields } = patch;
    if (status !== undefined && status !== row.status) {
      const operation = operationTo(row.status, status);
      if (!operation) throw new GatewayError('agent_transition_invalid', `Cannot change status from ${row.status} to ${status}.`);
      row = await applyTransition(tx, projectId, row, operation, suspendedReason ?? null, actor);
    }
    const values = columns(tx, fields);
    if (suspendedReason !== undefined && row.status === 'SUSPENDED') values.suspended_reason = suspendedReason;
    if (Object.keys(values).length === 0) return presentAgent(row);
    const [updated] = await tx<AgentRow[]>`update agents set ${tx(values)}, updated_at = now() where id = ${id} returning *`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'agent.update',
        activity: 'update',
        targetType: 'agent',
        targetId: id,
        details: { fields: Object.keys(values).sort() },
      }),
    ]);
    return presentAgent(updated!);
  });
}

/** The agent's status for the gate, or null when the id names no agent of the project. */
export async function agentStatus(sql: Sql, projectId: string, id: string): Promise<AgentStatus | null> {
  const [row] = await sql<{ status: AgentStatus }[]>`select status from agents where id = ${id} and project_id = ${projectId}`;
  return row?.status ?? null;
}
