// The sessions of a 'per-session' stdio server through the proxy: the gateway opens one itself at
// the caller's initialize (a new Mcp-Session-Id, bound to the credential as an upstream's session
// is, sessions.ts), the session's own process starts on its first use (forward-stdio.ts), and
// DELETE of the session ends its process and its binding. A shared server has no caller sessions.
import { randomUUID } from 'node:crypto';
import type { Reply, RouteRequest } from '../../http/types.js';
import type { ServerRow } from '../servers/server-rows.js';
import { rpcError, type RpcMessage } from './rpc.js';
import { bindSession, unbindSession } from './sessions.js';
import type { ProxyDeps } from './tool-call.js';

export const perSession = (server: ServerRow): boolean => server.transport === 'stdio' && server.process_mode === 'per-session';

/** A request to a per-session server outside a session (other than the initialize that opens one): refused before any gate. */
export function sessionRequired(server: ServerRow, msg: RpcMessage, sessionId: string | undefined): Reply | null {
  if (!perSession(server) || msg.kind !== 'request' || msg.method === 'initialize' || sessionId !== undefined) return null;
  const detail = 'this stdio server runs one process per MCP session: initialize first, then send its Mcp-Session-Id';
  const refused = rpcError(msg.id, 'INVALID_REQUEST', { detail });
  return { status: refused.status, body: refused.body };
}

/** The session a message to a stdio server belongs to: the caller's, or a new one its initialize opens (bound to its credential). */
export async function stdioSessionOf(
  deps: ProxyDeps,
  r: RouteRequest,
  server: ServerRow,
  msg: RpcMessage,
  sessionId: string | undefined,
): Promise<{ sessionId?: string; headers: Record<string, string> }> {
  if (!perSession(server)) return { headers: {} };
  if (sessionId !== undefined) return { sessionId, headers: {} };
  if (msg.kind !== 'request' || msg.method !== 'initialize') return { headers: {} };
  const opened = randomUUID();
  await bindSession(deps.sql, r.principal.projectId, server.id, opened, r.principal.credentialId);
  return { sessionId: opened, headers: { 'mcp-session-id': opened } };
}

/** DELETE of a per-session server's session: its process ended, its binding gone, before the answer. */
export function endStdioSession(deps: ProxyDeps, server: ServerRow, sessionId: string): Reply {
  return {
    stream: async (res) => {
      await deps.stdio?.endSession(server.id, sessionId);
      await unbindSession(deps.sql, server.id, sessionId);
      res.writeHead(204);
      res.end();
    },
  };
}
