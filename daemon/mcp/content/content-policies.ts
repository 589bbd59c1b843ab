// MCP content policies (/api/v1/mcp/content-policies): per project, and per server or per tool of a
// server, which detector inspects a call's arguments or what comes back, and what a finding does
// (BLOCK, REDACT, FLAG, OFF). Reads any role, writes Admin. Every change is a POLICY_CHANGE trace
// and an admin-log entry in one transaction; the proxy reads the table through the state cache
// (migration 00017 notifies), so a change reaches every daemon.
import { createId } from '@paralleldrive/cuid2';
import { GatewayError } from '../../../shared/errors.js';
import type { ContentPolicy, ContentPolicyCreate, ContentPolicyPatch } from '../../../shared/mcp-content-schemas.js';
import type { Sql, Tx } from '../../db/connect.js';
import { SQLSTATE, sqlState } from '../../db/sqlstate.js';
import { appendAdmin, appendTraces } from '../../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from '../../project/admin-actions.js';
import { checkDetectorConfig } from '../../verify/prompt-policies.js';

interface Row {
  id: string;
  server_id: string | null;
  tool_name: string | null;
  direction: ContentPolicy['direction'];
  detector: ContentPolicy['detector'];
  action: ContentPolicy['action'];
  config: Record<string, unknown>;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const present = (r: Row): ContentPolicy => ({
  id: r.id,
  server_id: r.server_id,
  tool_name: r.tool_name,
  direction: r.direction,
  detector: r.detector,
  action: r.action,
  config: r.config,
  created_by: r.created_by,
  created_at: r.created_at.toISOString(),
  updated_at: r.updated_at.toISOString(),
});

/** The project's content policies, oldest first (a project has a handful: no paging). */
export async function listContentPolicies(sql: Sql, projectId: string): Promise<ContentPolicy[]> {
  const rows = await sql<Row[]>`
    select * from mcp_content_policies where project_id = ${projectId} order by created_at, id limit 10000`;
  return rows.map(present);
}

const scopeText = (p: ContentPolicy) => (p.tool_name !== null ? `tool ${p.tool_name}` : p.server_id !== null ? 'server' : 'project');

async function recordChange(
  tx: Tx,
  projectId: string,
  operation: 'create' | 'update' | 'delete',
  policy: ContentPolicy,
  actor: Actor,
): Promise<void> {
  const action = `mcp.content_policy.${operation}`;
  await appendAdmin(tx, projectId, [
    adminEntry(actor, {
      action,
      activity: operation,
      targetType: 'mcp_content_policy',
      targetId: policy.id,
      details: {
        server_id: policy.server_id,
        tool_name: policy.tool_name,
        direction: policy.direction,
        detector: policy.detector,
        action: policy.action,
      },
    }),
  ]);
  await appendTraces(tx, projectId, [
    {
      traceType: 'POLICY_CHANGE',
      decision: 'POLICY_CHANGE',
      actionName: action,
      reason: `MCP content policy ${policy.direction}/${policy.detector} ${policy.action} (${scopeText(policy)}) ${operation}d by ${actorLabel(actor)}`,
      content: { policy, operation, actor: actorLabel(actor), request_id: actor.requestId },
    },
  ]);
}

export async function createContentPolicy(sql: Sql, projectId: string, body: ContentPolicyCreate, actor: Actor): Promise<ContentPolicy> {
  const config = checkDetectorConfig(body.detector, body.config);
  try {
    return await sql.begin(async (tx) => {
      if (body.server_id !== undefined) {
        const [server] = await tx`select 1 from mcp_servers where project_id = ${projectId} and id = ${body.server_id}`;
        if (!server) throw new GatewayError('not_found', 'No MCP server with this id.');
      }
      const [row] = await tx<Row[]>`
        insert into mcp_content_policies (id, project_id, server_id, tool_name, direction, detector, action, config, created_by)
        values (${createId()}, ${projectId}, ${body.server_id ?? null}, ${body.tool_name ?? null}, ${body.direction},
                ${body.detector}, ${body.action}, ${tx.json(config as never)}, ${actorLabel(actor)})
        returning *`;
      const created = present(row!);
      await recordChange(tx, projectId, 'create', created, actor);
      return created;
    });
  } catch (err) {
    if (sqlState(err) === SQLSTATE.uniqueViolation) throw new GatewayError('mcp_content_policy_exists');
    throw err;
  }
}

export async function updateContentPolicy(
  sql: Sql,
  projectId: string,
  id: string,
  patch: ContentPolicyPatch,
  actor: Actor,
): Promise<ContentPolicy> {
  return sql.begin(async (tx) => {
    const [before] = await tx<Row[]>`select * from mcp_content_policies where project_id = ${projectId} and id = ${id} for update`;
    if (!before) throw new GatewayError('not_found', 'No MCP content policy with this id.');
    const action = patch.action ?? before.action;
    if (action === 'REDACT' && before.detector === 'injection')
      throw new GatewayError('validation_error', 'Invalid request: action: injection cannot be redacted: BLOCK, FLAG or OFF');
    const config = patch.config !== undefined ? checkDetectorConfig(before.detector, patch.config) : before.config;
    const [row] = await tx<Row[]>`
      update mcp_content_policies set action = ${action}, config = ${tx.json(config as never)}, updated_at = clock_timestamp()
      where id = ${id} returning *`;
    const updated = present(row!);
    await recordChange(tx, projectId, 'update', updated, actor);
    return updated;
  });
}

export async function deleteContentPolicy(sql: Sql, projectId: string, id: string, actor: Actor): Promise<{ id: string; deleted: true }> {
  return sql.begin(async (tx) => {
    const [row] = await tx<Row[]>`delete from mcp_content_policies where project_id = ${projectId} and id = ${id} returning *`;
    if (!row) throw new GatewayError('not_found', 'No MCP content policy with this id.');
    await recordChange(tx, projectId, 'delete', present(row), actor);
    return { id, deleted: true as const };
  });
}
