// The MCP server registry: register (PENDING_APPROVAL, no traffic to the server), list, read,
// update metadata (never status), delete (cascades tools, rules and open approvals), pause
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
import type { UpstreamAuth } from '../client/upstream-auth.js';
import { presentStdio, stdioColumns, type StdioColumns, type StdioPart } from './stdio-record.js';

export const AUTH_PURPOSE = 'gw.mcp.auth.v1';

/** The server's sign-in, decrypted for this call only (the scan, the proxy). */
export function upstreamAuth(box: SecretBox, row: Pick<ServerRow, 'auth_method' | 'auth_config'>): UpstreamAuth {
  const config = row.auth_config ? (JSON.parse(box.open(row.auth_config as never, AUTH_PURPOSE)) as Record<string, unknown>) : null;
  return { method: row.auth_method, config };
}

/** The stored scan's format; a stored scan of another format reads as scan_state `unreadable`. */
export const SCAN_FORMAT = 1;

export interface ServerRow extends StdioColumns {
  id: string;
  project_id: string;
  name: string;
  server_url: string;
  connector_type: string;
  description: string | null;
  is_proxied: boolean;
  auth_method: string;
  auth_config: unknown;
  status: 'PENDING_APPROVAL' | 'ACTIVE' | 'BLOCKED';
  scan_state: string;
  scan_reason: string | null;
  scan_detail: string | null;
  is_healthy: boolean;
  scan_result: { format?: number } | null;
  last_scan_at: Date | null;
  last_scan_attempt_at: Date | null;
  created_at: Date;
  updated_at: Date;
  tool_count?: number;
  tools_unreleased?: number;
}

export interface ServerItem {
  id: string;
  name: string;
  server_url: string;
  transport: 'http' | 'stdio';
  /** A stdio server's registration (secret variables by name only); absent for an HTTP server. */
  stdio?: StdioPart;
  connector_type: string;
  description: string | null;
  is_proxied: boolean;
  auth_method: string;
  status: string;
  scan_state: string;
  scan_reason: string | null;
  is_healthy: boolean;
  tool_count: number;
  tools_unreleased: number;
  last_scan_at: string | null;
  created_at: string;
  updated_at: string;
}

export const nameKey = (name: string): string => name.trim().toLowerCase();

/** A stored scan of an older format cannot be trusted for admission: it reads as `unreadable`. */
export function scanStateOf(row: Pick<ServerRow, 'scan_state' | 'scan_result'>): string {
  if (row.scan_state === 'succeeded' && row.scan_result?.format !== SCAN_FORMAT) return 'unreadable';
  return row.scan_state;
}

export function presentServer(row: ServerRow): ServerItem {
  const stdio = presentStdio(row);
  return {
    id: row.id,
    name: row.name,
    server_url: row.server_url,
    transport: row.transport,
    ...(stdio ? { stdio } : {}),
    connector_type: row.connector_type,
    description: row.description,
    is_proxied: row.is_proxied,
    auth_method: row.auth_method,
    status: row.status,
    scan_state: scanStateOf(row),
    scan_reason: row.scan_reason,
    is_healthy: row.is_healthy,
    tool_count: row.tool_count ?? 0,
    tools_unreleased: row.tools_unreleased ?? 0,
    last_scan_at: row.last_scan_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** Counts come from present tools: tools_unreleased counts tools never admitted (changed ones are not). */
async function selectServers(sql: Sql | Tx, projectId: string, id: string | null, lock = false): Promise<ServerRow[]> {
  // Lock first, then read, so the row a transaction acts on is the one it holds.
  if (lock && id !== null) await sql`select id from mcp_servers where project_id = ${projectId} and id = ${id} for update`;
  const rows = await sql<ServerRow[]>`
    select s.*,
      (select count(*)::int from mcp_tools t where t.server_id = s.id and t.present) as tool_count,
      (select count(*)::int from mcp_tools t where t.server_id = s.id and t.present and t.approved_hash is null) as tools_unreleased
    from mcp_servers s
    where s.project_id = ${projectId} ${id === null ? sql`` : sql`and s.id = ${id}`}
    order by s.created_at, s.id limit 1000`;
  return rows;
}

export async function getServerRow(sql: Sql | Tx, projectId: string, id: string, lock = false): Promise<ServerRow> {
  const [row] = await selectServers(sql, projectId, id, lock);
  if (!row) throw new GatewayError('not_found', 'No MCP server with this id.');
  return row;
}

export async function listServers(sql: Sql, projectId: string): Promise<ServerItem[]> {
  return (await selectServers(sql, projectId, null)).map(presentServer);
}

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

export interface McpCounts {
  servers_total: number;
  servers_active: number;
  servers_scan_failed: number;
  poisoning_suspects: number;
}

/** What the command center shows of the registry (one query; suspects are present tools with findings). */
export async function mcpCounts(sql: Sql, projectId: string): Promise<McpCounts> {
  const [row] = await sql<McpCounts[]>`
    select count(*)::int as servers_total,
      (count(*) filter (where status = 'ACTIVE'))::int as servers_active,
      (count(*) filter (where scan_state = 'failed'))::int as servers_scan_failed,
      (select count(*)::int from mcp_tools t where t.project_id = ${projectId} and t.present and jsonb_array_length(t.findings) > 0) as poisoning_suspects
    from mcp_servers where project_id = ${projectId}`;
  return row!;
}
