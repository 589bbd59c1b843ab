// The MCP server registry's lifecycle (reading it: server-rows.ts): register (PENDING_APPROVAL,
// no traffic to the server), update metadata (never status), delete (cascades tools, rules and open approvals), pause
// (ACTIVE -> BLOCKED) and reject (PENDING_APPROVAL -> removed). Every lifecycle action is an
// admin-log entry in the same transaction (OCSF 3004 Entity Management, entity type mcp_server).
// auth_config is sealed with the daemon's secret box and never leaves it.
import { createId } from '@paralleldrive/cuid2';
import { GatewayError } from '../../../shared/errors.js';
import { type ServerPatch, type ServerRegister, tokenExchangeConfig } from '../../../shared/mcp-schemas.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Sql, Tx } from '../../db/connect.js';
import { SQLSTATE, sqlState } from '../../db/sqlstate.js';
import { appendAdmin } from '../../ledger/append.js';
import { actorLabel, adminEntry, type Actor, type OcsfActivity } from '../../project/admin-actions.js';
import { AUTH_PURPOSE, getServerRow, nameKey, presentServer, type ServerItem, type ServerRow } from './server-rows.js';
import { stdioColumns } from './stdio-record.js';

async function audit(
  tx: Tx,
  projectId: string,
  actor: Actor,
  action: string,
  activity: OcsfActivity,
  server: { id: string; name: string },
  details: Record<string, unknown> = {},
): Promise<void> {
  await appendAdmin(tx, projectId, [
    adminEntry(actor, {
      action,
      activity,
      targetType: 'mcp_server',
      targetId: server.id,
      details: { name: server.name, ...details },
    }),
  ]);
}

function nameConflict(err: unknown): never {
  if (sqlState(err) === SQLSTATE.uniqueViolation) throw new GatewayError('mcp_server_name_conflict');
  throw err;
}

/** A stdio registration has passed the allow-list and grant checks (api/v1/mcp-servers.ts) before it gets here. */
export async function registerServer(sql: Sql, box: SecretBox, projectId: string, body: ServerRegister, actor: Actor): Promise<ServerItem> {
  return sql.begin(async (tx) => {
    const id = createId();
    const common = {
      id,
      project_id: projectId,
      name: body.name.trim(),
      name_key: nameKey(body.name),
      connector_type: body.connector_type,
      description: body.description ?? null,
      status: 'PENDING_APPROVAL',
      created_by: actorLabel(actor),
    };
    const values =
      body.transport === 'stdio'
        ? { ...common, ...stdioValues(tx, box, body), server_url: `stdio:${body.command}`, is_proxied: true }
        : { ...common, server_url: body.server_url, is_proxied: body.is_proxied };
    await tx`insert into mcp_servers ${tx(values)}`.catch(nameConflict);
    // The command and its arguments are audited; variable values never are (names only).
    const details =
      body.transport === 'stdio'
        ? {
            transport: 'stdio',
            command: body.command,
            args: body.args,
            env_names: Object.keys(body.env),
            secret_env_names: Object.keys(body.secret_env).sort(),
          }
        : { server_url: body.server_url };
    await audit(tx, projectId, actor, 'mcp.server.register', 'create', { id, name: body.name.trim() }, details);
    return presentServer(await getServerRow(tx, projectId, id));
  });
}

function stdioValues(tx: Tx, box: SecretBox, body: Extract<ServerRegister, { transport: 'stdio' }>) {
  const columns = stdioColumns(box, body);
  return {
    ...columns,
    args: tx.json(columns.args as never),
    env: tx.json(columns.env as never),
    secret_env: columns.secret_env === null ? null : tx.json(columns.secret_env as never),
    grants: tx.json(columns.grants as never),
  };
}

export async function updateServer(
  sql: Sql,
  box: SecretBox,
  projectId: string,
  id: string,
  patch: ServerPatch,
  actor: Actor,
): Promise<ServerItem> {
  return sql.begin(async (tx) => {
    const before = await getServerRow(tx, projectId, id, true);
    const sets: Record<string, unknown> = {};
    if (patch.name !== undefined) {
      sets.name = patch.name.trim();
      sets.name_key = nameKey(patch.name);
    }
    if (patch.description !== undefined) sets.description = patch.description;
    if (patch.auth_method !== undefined) sets.auth_method = patch.auth_method.toLowerCase();
    checkExchangeConfig(patch, before);
    if (patch.auth_config !== undefined) {
      sets.auth_config = patch.auth_config === null ? null : tx.json(box.seal(JSON.stringify(patch.auth_config), AUTH_PURPOSE) as never);
    }
    await tx`update mcp_servers set ${tx(sets)}, updated_at = now() where id = ${id}`.catch(nameConflict);
    await audit(
      tx,
      projectId,
      actor,
      'mcp.server.update',
      'update',
      { id, name: String(sets.name ?? before.name) },
      {
        changed: Object.keys(patch), // which fields, never the secret values
      },
    );
    return presentServer(await getServerRow(tx, projectId, id));
  });
}

/** A new auth_config alone for a token_exchange server must hold its settings (the schema checks them beside auth_method). */
function checkExchangeConfig(patch: ServerPatch, before: ServerRow): void {
  if (patch.auth_method !== undefined || patch.auth_config === undefined || before.auth_method !== 'token_exchange') return;
  const parsed = tokenExchangeConfig.safeParse(patch.auth_config ?? undefined);
  if (!parsed.success)
    throw new GatewayError(
      'validation_error',
      `auth_config: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'auth_config'}: ${i.message}`).join('; ')}`,
    );
}

/** Removes a server with its tools (cascade), its rules and its open approvals; audited. */
async function removeServer(
  tx: Tx,
  projectId: string,
  row: ServerRow,
  actor: Actor,
  action: string,
  activity: OcsfActivity,
): Promise<void> {
  const ended = await tx`
    update approvals set status = 'CANCELLED', decided_at = now(), decided_by = 'system', comment = 'server removed'
    where project_id = ${projectId} and server_id = ${row.id} and status = 'PENDING' returning id`;
  const rules = await removeServerRules(tx, row.id);
  await tx`delete from mcp_servers where id = ${row.id}`;
  await audit(tx, projectId, actor, action, activity, row, {
    tools_removed: row.tool_count ?? 0,
    rules_removed: rules,
    approvals_ended: ended.length,
  });
}

/** The server's tool rules (they would also go by cascade; counted here for the audit entry). */
async function removeServerRules(tx: Tx, serverId: string): Promise<number> {
  const gone = await tx`delete from mcp_policies where server_id = ${serverId} returning id`;
  return gone.length;
}

export async function deleteServer(sql: Sql, projectId: string, id: string, actor: Actor): Promise<{ id: string; deleted: true }> {
  return sql.begin(async (tx) => {
    const row = await getServerRow(tx, projectId, id, true);
    await removeServer(tx, projectId, row, actor, 'mcp.server.delete', 'delete');
    return { id, deleted: true as const };
  });
}

export async function rejectServer(
  sql: Sql,
  projectId: string,
  id: string,
  actor: Actor,
): Promise<{ id: string; status: 'REJECTED'; removed: true }> {
  return sql.begin(async (tx) => {
    const row = await getServerRow(tx, projectId, id, true);
    if (row.status !== 'PENDING_APPROVAL')
      throw new GatewayError(
        'mcp_server_transition_invalid',
        `Only a server awaiting approval can be rejected; this one is ${row.status}.`,
      );
    await removeServer(tx, projectId, row, actor, 'mcp.server.reject', 'disable');
    return { id, status: 'REJECTED' as const, removed: true as const };
  });
}

export async function pauseServer(sql: Sql, projectId: string, id: string, actor: Actor): Promise<ServerItem> {
  return sql.begin(async (tx) => {
    const row = await getServerRow(tx, projectId, id, true);
    if (row.status !== 'ACTIVE')
      throw new GatewayError('mcp_server_transition_invalid', `Only an ACTIVE server can be paused; this one is ${row.status}.`);
    await tx`update mcp_servers set status = 'BLOCKED', updated_at = now() where id = ${id}`;
    await audit(tx, projectId, actor, 'mcp.server.pause', 'suspend', row, { from: 'ACTIVE', to: 'BLOCKED' });
    return presentServer(await getServerRow(tx, projectId, id));
  });
}
