// The approval store, shared by verify (REQUIRE_APPROVAL prompts) and the MCP proxy (held tool
// calls). An approval is bound to the canonical hash of exactly what it was requested for, is open
// while PENDING and unexpired, is decided once by a person (decider.ts), and is used at most once.
// Expiry is read from expires_at, so an expired approval is never usable even before anything
// marks it. The project emergency stop ends every open approval (CANCELLED) in its own transaction.
import { createId } from '@paralleldrive/cuid2';
import { GatewayError } from '../../shared/errors.js';
import { assertDatabaseUp } from '../db/availability.js';
import type { Sql, Tx } from '../db/connect.js';
import { appendAdmin, appendTraces } from '../ledger/append.js';
import { deciderOf, decidesOwnRequest } from './decider.js';
import { emitEvent } from '../notifications/emit.js';
import { approvalDecided } from '../notifications/events.js';
import { adminEntry, type Actor } from '../project/admin-actions.js';
import { onStopSet } from '../project/emergency-stop.js';

export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'DENIED' | 'EXPIRED' | 'USED' | 'CANCELLED';

export interface Approval {
  readonly id: string;
  readonly kind: 'verify' | 'mcp';
  readonly trace_id: string | null;
  readonly server_id: string | null;
  readonly tool_name: string | null;
  readonly agent_id: string | null;
  /** The credential (API key or user token id, never a secret) whose call opened the request. */
  readonly credential_id: string | null;
  readonly arguments_hash: string;
  readonly status: ApprovalStatus;
  readonly created_at: string;
  readonly expires_at: string;
  readonly decided_at: string | null;
  readonly decided_by: string | null;
  readonly comment: string | null;
  /** What the content policies found in a held call's arguments: types and JSON paths, never values. */
  readonly findings: readonly Record<string, unknown>[];
}

interface Row {
  id: string;
  kind: 'verify' | 'mcp';
  trace_id: string | null;
  server_id: string | null;
  tool_name: string | null;
  agent_id: string | null;
  credential_id: string | null;
  arguments_hash: string;
  status: ApprovalStatus;
  created_at: Date;
  expires_at: Date;
  decided_at: Date | null;
  decided_by: string | null;
  comment: string | null;
  findings: Record<string, unknown>[] | null;
}

function present(row: Row, now = new Date()): Approval {
  const expired = row.status === 'PENDING' && row.expires_at <= now;
  return {
    id: row.id,
    kind: row.kind,
    trace_id: row.trace_id,
    server_id: row.server_id,
    tool_name: row.tool_name,
    agent_id: row.agent_id,
    credential_id: row.credential_id,
    arguments_hash: row.arguments_hash,
    status: expired ? 'EXPIRED' : row.status,
    created_at: row.created_at.toISOString(),
    expires_at: row.expires_at.toISOString(),
    decided_at: row.decided_at?.toISOString() ?? null,
    decided_by: row.decided_by,
    comment: row.comment,
    findings: row.findings ?? [],
  };
}

export interface NewApproval {
  readonly kind: 'verify' | 'mcp';
  readonly traceId?: string | null;
  readonly serverId?: string | null;
  readonly toolName?: string | null;
  readonly agentId?: string | null;
  readonly credentialId: string | null;
  readonly argumentsHash: string;
  readonly ttlSeconds: number;
  readonly findings?: readonly Record<string, unknown>[];
}

export async function createApproval(tx: Tx | Sql, projectId: string, a: NewApproval): Promise<Approval> {
  assertDatabaseUp(tx); // no approval without the database: refused at once while it is known down
  const [row] = await tx<Row[]>`
    insert into approvals (id, project_id, kind, trace_id, server_id, tool_name, agent_id, credential_id, arguments_hash, status, expires_at, findings)
    values (${createId()}, ${projectId}, ${a.kind}, ${a.traceId ?? null}, ${a.serverId ?? null}, ${a.toolName ?? null},
            ${a.agentId ?? null}, ${a.credentialId}, ${a.argumentsHash}, 'PENDING', now() + ${a.ttlSeconds + ' seconds'}::interval,
            ${a.findings && a.findings.length > 0 ? tx.json(a.findings as never) : null})
    returning *`;
  return present(row!);
}

export async function listOpen(sql: Sql, projectId: string): Promise<Approval[]> {
  const rows = await sql<Row[]>`
    select * from approvals where project_id = ${projectId} and status = 'PENDING' and expires_at > now()
    order by created_at, id limit 1000`;
  return rows.map((r) => present(r));
}

export async function getApproval(sql: Sql | Tx, projectId: string, id: string): Promise<Approval> {
  const [row] = await sql<Row[]>`select * from approvals where project_id = ${projectId} and id = ${id}`;
  if (!row) throw new GatewayError('not_found', 'No approval request with this id.');
  return present(row);
}

/** The approval a PENDING_APPROVAL verify created, by its trace. */
export async function approvalOfTrace(sql: Sql, projectId: string, traceId: string): Promise<Approval> {
  const [row] = await sql<
    Row[]
  >`select * from approvals where project_id = ${projectId} and trace_id = ${traceId} order by created_at desc limit 1`;
  if (!row) throw new GatewayError('not_found', 'No approval request for this trace.');
  return present(row);
}

/**
 * Decides an open approval: only a person (decider.ts; the route requires Admin) may, once, and,
 * with GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER, not one who opened it (403, nothing written).
 * The decision is a trace (APPROVAL) and an admin-log entry, in the same transaction.
 */
export async function decideApproval(
  sql: Sql,
  projectId: string,
  id: string,
  approved: boolean,
  comment: string | null,
  actor: Actor,
  rules: { readonly deciderNotRequester: boolean },
): Promise<Approval> {
  const decider = deciderOf(actor.principal);
  if (decider === null) throw new GatewayError('mcp_release_author_unresolved');
  return sql.begin(async (tx) => {
    const [row] = await tx<Row[]>`select * from approvals where project_id = ${projectId} and id = ${id} for update`;
    if (!row) throw new GatewayError('not_found', 'No approval request with this id.');
    if (present(row).status !== 'PENDING') throw new GatewayError('approval_not_open');
    if (rules.deciderNotRequester && (await decidesOwnRequest(tx, row.credential_id, actor.principal!)))
      throw new GatewayError('approval_decider_is_requester');
    const status: ApprovalStatus = approved ? 'APPROVED' : 'DENIED';
    const [updated] = await tx<Row[]>`
      update approvals set status = ${status}, decided_at = now(), decided_by = ${decider.label}, comment = ${comment}
      where id = ${id} returning *`;
    await appendTraces(tx, projectId, [
      {
        traceType: 'APPROVAL',
        decision: approved ? 'PASSED' : 'BLOCKED',
        actionName: approved ? 'approval.approve' : 'approval.deny',
        reason: `approval ${id} ${approved ? 'approved' : 'denied'} by ${decider.label}`,
        agentId: row.agent_id,
        content: {
          approval_id: id,
          kind: row.kind,
          trace_id: row.trace_id,
          server_id: row.server_id,
          tool_name: row.tool_name,
          credential_id: row.credential_id,
          arguments_hash: row.arguments_hash,
          approved,
          comment,
          decided_by: decider.label,
          request_id: actor.requestId,
        },
      },
    ]);
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: approved ? 'approval.approve' : 'approval.deny',
        activity: 'update',
        targetType: 'approval',
        targetId: id,
        details: { kind: row.kind, trace_id: row.trace_id, server_id: row.server_id, tool_name: row.tool_name },
      }),
    ]);
    await emitEvent(tx, projectId, 'approval.decided', approvalDecided(present(updated!)));
    return present(updated!);
  });
}

/**
 * Uses an APPROVED, unexpired approval for exactly the arguments it was decided for; marks it
 * USED in the caller's transaction. False when there is none to use.
 */
export async function consumeApproval(tx: Tx, projectId: string, id: string, argumentsHash: string): Promise<boolean> {
  const rows = await tx`
    update approvals set status = 'USED', used_at = now()
    where project_id = ${projectId} and id = ${id} and status = 'APPROVED' and arguments_hash = ${argumentsHash} and expires_at > now()
    returning id`;
  return rows.length === 1;
}

/**
 * What a held MCP call is bound to besides its id: server, tool, agent (null: anonymous), the
 * credential that made it (X-Agent-Id proves nothing; the credential does) and arguments.
 */
export interface McpBinding {
  readonly serverId: string;
  readonly toolName: string;
  readonly agentId: string | null;
  readonly credentialId: string;
  readonly argumentsHash: string;
}

/**
 * Uses an APPROVED, unexpired MCP approval for exactly the call it was decided for (server, tool,
 * agent, credential, argument hash). One conditional UPDATE: under concurrent repeats the row lock lets exactly
 * one of them see status APPROVED, so exactly one call is forwarded. Run it in the transaction that
 * records the forwarding decision, so the approval is spent if and only if that record commits.
 */
export async function consumeMcpApproval(tx: Tx | Sql, projectId: string, id: string, b: McpBinding): Promise<boolean> {
  const rows = await tx`
    update approvals set status = 'USED', used_at = now()
    where project_id = ${projectId} and id = ${id} and kind = 'mcp' and status = 'APPROVED' and expires_at > now()
      and server_id = ${b.serverId} and tool_name = ${b.toolName} and agent_id is not distinct from ${b.agentId}
      and credential_id = ${b.credentialId} and arguments_hash = ${b.argumentsHash}
    returning id`;
  return rows.length === 1;
}

/** One approval, or null when the project has none with this id (the proxy reads what a caller presents). */
export async function findApproval(sql: Sql | Tx, projectId: string, id: string): Promise<Approval | null> {
  assertDatabaseUp(sql); // no approval without the database: refused at once while it is known down
  const [row] = await sql<Row[]>`select * from approvals where project_id = ${projectId} and id = ${id}`;
  return row ? present(row) : null;
}

/** Open approvals of one kind (GET /mcp/approvals lists the MCP ones). */
export async function listOpenOfKind(sql: Sql, projectId: string, kind: 'verify' | 'mcp'): Promise<Approval[]> {
  const rows = await sql<Row[]>`
    select * from approvals where project_id = ${projectId} and kind = ${kind} and status = 'PENDING' and expires_at > now()
    order by created_at, id limit 1000`;
  return rows.map((r) => present(r));
}

/**
 * Ends (CANCELLED) the MCP approvals of one server or one agent that could still let a call
 * through: open ones (PENDING, unexpired) and approved ones not yet used. The targeted MCP stop.
 */
export async function endMcpApprovals(
  tx: Tx,
  projectId: string,
  target: { serverId: string } | { agentId: string },
  comment: string,
): Promise<number> {
  const where = 'serverId' in target ? tx`server_id = ${target.serverId}` : tx`agent_id = ${target.agentId}`;
  const ended = await tx`
    update approvals set status = 'CANCELLED', decided_at = coalesce(decided_at, now()), decided_by = coalesce(decided_by, 'system'), comment = ${comment}
    where project_id = ${projectId} and kind = 'mcp' and ${where} and status in ('PENDING', 'APPROVED') and expires_at > now()
    returning id`;
  return ended.length;
}

let stopHookRegistered = false;

/** "Open approvals end" when the project emergency stop is set (registered once per process). */
export function registerStopHook(): void {
  if (stopHookRegistered) return;
  stopHookRegistered = true;
  onStopSet(async (tx, projectId) => {
    const ended = await tx`
      update approvals set status = 'CANCELLED', decided_at = now(), decided_by = 'system', comment = 'ended by the project emergency stop'
      where project_id = ${projectId} and status = 'PENDING' and expires_at > now() returning id`;
    return { approvals_ended: ended.length };
  });
}
