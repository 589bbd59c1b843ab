// MCP tool rules and agent rules (/mcp/policies): list (any role), create (Editor for the
// tightening REQUIRE_APPROVAL and DENY, Admin for the loosening ALLOW and LOG_ONLY), delete
// (Admin). There is no update: the verdict route replaces a tool's server-wide rules. An agent
// rule can only tighten, so ALLOW or LOG_ONLY for an agent is refused. Every change is a
// POLICY_CHANGE trace and an admin-log entry in one transaction.
import { createId } from '@paralleldrive/cuid2';
import { roleAtLeast, type Principal } from '../../../shared/credentials.js';
import { GatewayError } from '../../../shared/errors.js';
import type { McpPolicyCreate } from '../../../shared/mcp-schemas.js';
import type { Sql, Tx } from '../../db/connect.js';
import { appendAdmin, appendTraces } from '../../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from '../../project/admin-actions.js';

interface PolicyRow {
  id: string;
  server_id: string | null;
  mcp_tool_id: string | null;
  agent_id: string | null;
  action: string;
  reason: string | null;
  conditions: unknown;
  is_auto_generated: boolean;
  created_by: string | null;
  created_at: Date;
}

const present = (p: PolicyRow) => ({
  id: p.id,
  action: p.action,
  mcp_tool_id: p.mcp_tool_id,
  agent_id: p.agent_id,
  server_id: p.server_id,
  reason: p.reason,
  conditions: p.conditions ?? null,
  is_auto_generated: p.is_auto_generated,
  created_by: p.created_by,
  created_at: p.created_at.toISOString(),
});

/** A rule as listed: beside each id the name a person knows it by (null when the tool, server or agent is gone). */
type Listed = ReturnType<typeof present> & { tool_name: string | null; server_name: string | null; agent_name: string | null };

export async function listMcpPolicies(sql: Sql, projectId: string): Promise<Listed[]> {
  const rows = await sql<(PolicyRow & { tool_name: string | null; server_name: string | null; agent_name: string | null })[]>`
    select p.*, t.name as tool_name, s.name as server_name, a.name as agent_name
    from mcp_policies p
      left join mcp_tools t on t.id = p.mcp_tool_id
      left join mcp_servers s on s.id = coalesce(p.server_id, t.server_id) and s.project_id = p.project_id
      left join agents a on a.id = p.agent_id and a.project_id = p.project_id
    where p.project_id = ${projectId} order by p.created_at, p.id limit 1000`;
  return rows.map((r) => ({ ...present(r), tool_name: r.tool_name, server_name: r.server_name, agent_name: r.agent_name }));
}

async function record(
  tx: Tx,
  projectId: string,
  operation: 'create' | 'delete',
  policy: ReturnType<typeof present>,
  actor: Actor,
): Promise<void> {
  await appendAdmin(tx, projectId, [
    adminEntry(actor, {
      action: `mcp.policy.${operation}`,
      activity: operation,
      targetType: 'mcp_policy',
      targetId: policy.id,
      details: { action: policy.action, mcp_tool_id: policy.mcp_tool_id, agent_id: policy.agent_id },
    }),
  ]);
  await appendTraces(tx, projectId, [
    {
      traceType: 'POLICY_CHANGE',
      decision: 'POLICY_CHANGE',
      actionName: `mcp.policy.${operation}`,
      reason: `MCP rule ${policy.action} ${operation}d by ${actorLabel(actor)}`,
      agentId: policy.agent_id,
      content: { policy, operation, actor: actorLabel(actor), request_id: actor.requestId },
    },
  ]);
}

export async function createMcpPolicy(
  sql: Sql,
  projectId: string,
  body: McpPolicyCreate,
  principal: Principal,
  actor: Actor,
): Promise<ReturnType<typeof present>> {
  if (body.agent_id !== undefined && (body.action === 'ALLOW' || body.action === 'LOG_ONLY'))
    throw new GatewayError('mcp_agent_rule_ineffective');
  if ((body.action === 'ALLOW' || body.action === 'LOG_ONLY') && !roleAtLeast(principal.role, 'admin')) {
    throw new GatewayError('forbidden', 'ALLOW and LOG_ONLY rules loosen access: they need Admin.');
  }
  return sql.begin(async (tx) => {
    let serverId: string | null = null;
    if (body.mcp_tool_id !== undefined) {
      const [tool] = await tx<
        { server_id: string }[]
      >`select server_id from mcp_tools where id = ${body.mcp_tool_id} and project_id = ${projectId}`;
      if (!tool) throw new GatewayError('not_found', 'No MCP tool with this id.');
      serverId = tool.server_id;
    }
    const [row] = await tx<PolicyRow[]>`
      insert into mcp_policies (id, project_id, server_id, mcp_tool_id, agent_id, action, reason, conditions, created_by)
      values (${createId()}, ${projectId}, ${serverId}, ${body.mcp_tool_id ?? null}, ${body.agent_id ?? null}, ${body.action},
              ${body.reason ?? null}, ${body.conditions ? tx.json(body.conditions as never) : null}, ${actorLabel(actor)})
      returning *`;
    const created = present(row!);
    await record(tx, projectId, 'create', created, actor);
    return created;
  });
}

export async function deleteMcpPolicy(sql: Sql, projectId: string, id: string, actor: Actor): Promise<{ id: string; deleted: true }> {
  return sql.begin(async (tx) => {
    const [row] = await tx<PolicyRow[]>`delete from mcp_policies where project_id = ${projectId} and id = ${id} returning *`;
    if (!row) throw new GatewayError('not_found', 'No MCP policy with this id.');
    await record(tx, projectId, 'delete', present(row), actor);
    return { id, deleted: true as const };
  });
}
