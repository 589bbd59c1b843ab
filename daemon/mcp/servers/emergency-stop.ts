// The targeted MCP stop (POST /mcp/emergency-stop, Admin): scope `server` blocks the server if it
// is ACTIVE (any other status stays as it is) and ends its approvals; scope `agent` ends the
// agent's approvals. "Ends" covers every approval that could still let a call through: open ones
// (PENDING, unexpired) and approved ones not yet used, all CANCELLED. Each stop is an admin-log
// entry (the ledger-attested log, OCSF Entity Management) and a POLICY_CHANGE trace, in the same
// transaction as its effects. Scope `all` was removed (400 mcp_scope_all_removed: use the project
// emergency stop); target_id is required. Every refusal is checked before anything is written.
import { z } from 'zod';
import { GatewayError } from '../../../shared/errors.js';
import type { McpStopReply } from '../../../shared/mcp-schemas.js';
import { endMcpApprovals } from '../../approvals/store.js';
import type { Sql } from '../../db/connect.js';
import { appendAdmin, appendTraces } from '../../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from '../../project/admin-actions.js';
import { getServerRow } from './server-rows.js';

const liveScopes = z
  .object({
    scope: z.enum(['server', 'agent']),
    target_id: z.string({ error: 'is required' }).trim().min(1, 'is required').max(200),
    reason: z.string().max(2000).optional(),
  })
  .strict();

/**
 * Scope `all` answers before any other check, with the code that names the removed behaviour (the
 * route table validates with this schema; the refusal passes through it as the gateway's error).
 */
const removedScope = z
  .object({ scope: z.literal('all') })
  .loose()
  .describe('Removed: answered 400 mcp_scope_all_removed (use the project emergency stop).')
  .transform((): never => {
    throw new GatewayError('mcp_scope_all_removed');
  });

export const stopBody = z.discriminatedUnion('scope', [removedScope, liveScopes], { error: 'must be server or agent' });
export type StopBody = z.output<typeof liveScopes>;

const ENDED = 'ended by the MCP emergency stop';

/** Runs after a server stop has committed: work outside the database that ends with it (its stdio processes). */
export type ServerStopHook = (serverId: string) => Promise<void>;

const afterHooks = new Set<ServerStopHook>();

/** Registers `hook` for every later server stop; returns its removal (a daemon removes its own at close). */
export function afterServerStop(hook: ServerStopHook): () => void {
  afterHooks.add(hook);
  return () => afterHooks.delete(hook);
}

export async function mcpEmergencyStop(sql: Sql, projectId: string, body: StopBody, actor: Actor): Promise<McpStopReply> {
  const reason = body.reason ?? null;
  const answer = await sql.begin(async (tx) => {
    let reply: McpStopReply;
    if (body.scope === 'server') {
      const server = await getServerRow(tx, projectId, body.target_id, true);
      const next = server.status === 'ACTIVE' ? 'BLOCKED' : server.status;
      if (next !== server.status) await tx`update mcp_servers set status = ${next}, updated_at = now() where id = ${server.id}`;
      const ended = await endMcpApprovals(tx, projectId, { serverId: server.id }, ENDED);
      reply = {
        scope: 'server',
        target_id: server.id,
        reason,
        approvals_ended: ended,
        previous_status: server.status,
        server_status: next,
      };
      await appendAdmin(tx, projectId, [
        adminEntry(actor, {
          action: 'mcp.emergency_stop.server',
          activity: 'suspend',
          targetType: 'mcp_server',
          targetId: server.id,
          details: { name: server.name, reason, from: server.status, to: next, approvals_ended: ended },
        }),
      ]);
    } else {
      const [agent] = await tx<{ id: string }[]>`select id from agents where project_id = ${projectId} and id = ${body.target_id}`;
      if (!agent) throw new GatewayError('not_found', 'No agent with this id.');
      const ended = await endMcpApprovals(tx, projectId, { agentId: agent.id }, ENDED);
      reply = { scope: 'agent', target_id: agent.id, reason, approvals_ended: ended };
      await appendAdmin(tx, projectId, [
        adminEntry(actor, {
          action: 'mcp.emergency_stop.agent',
          activity: 'suspend',
          targetType: 'agent',
          targetId: agent.id,
          details: { reason, approvals_ended: ended },
        }),
      ]);
    }
    await appendTraces(tx, projectId, [
      {
        traceType: 'MCP_EMERGENCY_STOP',
        decision: 'POLICY_CHANGE',
        actionName: `mcp.emergency_stop.${body.scope}`,
        reason: `MCP emergency stop (${body.scope} ${body.target_id}) by ${actorLabel(actor)}${reason ? `: ${reason}` : ''}`,
        agentId: body.scope === 'agent' ? body.target_id : null,
        content: { ...reply, actor: actorLabel(actor), request_id: actor.requestId },
      },
    ]);
    return reply;
  });
  if (answer.scope === 'server') for (const hook of afterHooks) await hook(answer.target_id);
  return answer;
}
