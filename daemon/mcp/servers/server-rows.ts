// Reading the MCP server registry: a server's row as stored, how the API shows it (presentServer),
// its scan state, one server (locked when a transaction acts on it) or the list, the counts the
// command center shows, and its sign-in opened for one call. registry.ts writes; this reads.
import { GatewayError } from '../../../shared/errors.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Sql, Tx } from '../../db/connect.js';
import type { UpstreamAuth } from '../client/upstream-auth.js';
import { presentStdio, type StdioColumns, type StdioPart } from './stdio-record.js';

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
