// 2025-era sessions through the proxy. The upstream's Mcp-Session-Id goes back to the client as it
// is, and is bound (in the database, so any daemon can serve the next request) to the gateway
// credential whose `initialize` opened it. A request presenting a session id must come with that
// credential; an unknown id, or one opened by another credential, is answered 404 (the transport's
// "session not found": the client starts a new session) and never reaches the upstream. Only a
// SHA-256 of the id is stored. A binding ends with DELETE, with the upstream's 404 for it, or with
// the server.
import { createHash } from 'node:crypto';
import type { Sql } from '../../db/connect.js';

const hashOf = (sessionId: string): string => 'sha256:' + createHash('sha256').update(sessionId, 'utf8').digest('hex');

export async function bindSession(sql: Sql, projectId: string, serverId: string, sessionId: string, credentialId: string): Promise<void> {
  await sql`
    insert into mcp_proxy_sessions (project_id, server_id, session_hash, credential_id)
    values (${projectId}, ${serverId}, ${hashOf(sessionId)}, ${credentialId})
    on conflict (server_id, session_hash) do nothing`;
}

/** True when `sessionId` on this server was opened by `credentialId`. */
export async function sessionBoundTo(sql: Sql, serverId: string, sessionId: string, credentialId: string): Promise<boolean> {
  const [row] = await sql<{ credential_id: string }[]>`
    select credential_id from mcp_proxy_sessions where server_id = ${serverId} and session_hash = ${hashOf(sessionId)}`;
  return row?.credential_id === credentialId;
}

export async function unbindSession(sql: Sql, serverId: string, sessionId: string): Promise<void> {
  await sql`delete from mcp_proxy_sessions where server_id = ${serverId} and session_hash = ${hashOf(sessionId)}`;
}
