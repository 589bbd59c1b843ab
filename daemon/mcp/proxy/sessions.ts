// 2025-era sessions through the proxy. The upstream's Mcp-Session-Id goes back to the client as it
// is, and is bound (in the database, so any daemon can serve the next request) to the gateway
// credential whose `initialize` opened it. A request presenting a session id must come with that
// credential; an unknown id, or one opened by another credential, is answered 404 (the transport's
// "session not found": the client starts a new session) and never reaches the upstream. Only a
// SHA-256 of the id is stored. A binding ends with DELETE, with the upstream's 404 for it, or with
// the server. Bindings are read through the state cache (daemon/state-cache/): a binding made or
// ended by any daemon reaches the others with its notification.
import { createHash } from 'node:crypto';
import type { Sql } from '../../db/connect.js';
import { assertDatabaseUp } from '../../db/availability.js';
import { stateCacheOf } from '../../state-cache/pool-attachment.js';
import { readOrRecall } from '../../state-cache/last-known.js';

const hashOf = (sessionId: string): string => 'sha256:' + createHash('sha256').update(sessionId, 'utf8').digest('hex');

export async function bindSession(sql: Sql, projectId: string, serverId: string, sessionId: string, credentialId: string): Promise<void> {
  // A session that cannot be bound could not be used afterwards: while the database is down, initialize is refused (503).
  assertDatabaseUp(sql);
  await sql`
    insert into mcp_proxy_sessions (project_id, server_id, session_hash, credential_id)
    values (${projectId}, ${serverId}, ${hashOf(sessionId)}, ${credentialId})
    on conflict (server_id, session_hash) do nothing`;
  stateCacheOf(sql)?.changed(projectId, 'mcp_proxy_sessions');
}

/** True when `sessionId` on this server (of this project) was opened by `credentialId`. */
export async function sessionBoundTo(
  sql: Sql,
  projectId: string,
  serverId: string,
  sessionId: string,
  credentialId: string,
): Promise<boolean> {
  const hash = hashOf(sessionId);
  // While the database is unreachable a binding read recently still holds (last-known.ts).
  const load = () => readOrRecall(sql, `session\u0000${serverId}\u0000${hash}`, () => boundCredential(sql, projectId, serverId, hash));
  const cache = stateCacheOf(sql);
  return (await (cache ? cache.read(projectId, 'session', `${serverId}\u0000${hash}`, load) : load())) === credentialId;
}

async function boundCredential(sql: Sql, projectId: string, serverId: string, hash: string): Promise<string | null> {
  const [row] = await sql<{ credential_id: string }[]>`
    select credential_id from mcp_proxy_sessions where server_id = ${serverId} and session_hash = ${hash} and project_id = ${projectId}`;
  return row?.credential_id ?? null;
}

export async function unbindSession(sql: Sql, serverId: string, sessionId: string): Promise<void> {
  const gone = await sql<{ project_id: string }[]>`
    delete from mcp_proxy_sessions where server_id = ${serverId} and session_hash = ${hashOf(sessionId)} returning project_id`;
  for (const row of gone) stateCacheOf(sql)?.changed(row.project_id, 'mcp_proxy_sessions');
}
