// A caller that sends a bare JSON-RPC request (no MCP session of its own: no Mcp-Session-Id, no
// MCP-Protocol-Version, not initialize), as `curl` or `gatewayctl proxy call` do, is served
// through a one-off session the gateway opens itself (client.ts McpSession, in the era the last
// scan found, so no probe): handshake, the one request, goodbye. The answer is the upstream's
// result or its JSON-RPC error under the caller's id; upstream failures map as in forward.ts.
// Such a session declares no client capabilities: nobody is there to answer a server's sampling,
// elicitation or roots request, so the server must not send one (it answers the tool's call as a
// client without them).
import type { Dispatcher } from 'undici';
import type { UpstreamAuth } from '../auth.js';
import { McpSession, type Era } from '../client.js';
import { McpClientError, type JsonRpcErrorObject } from '../errors.js';
import type { ServerRow } from '../servers.js';

export type GatewayAnswer =
  | { readonly kind: 'result'; readonly result: Record<string, unknown> }
  | { readonly kind: 'rpc_error'; readonly error: JsonRpcErrorObject }
  | { readonly kind: 'failure'; readonly error: McpClientError };

export interface SessionLimits {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly responseLimitBytes: number;
}

function eraOf(server: ServerRow): 'auto' | Era {
  const era = (server.scan_result as { era?: unknown } | null)?.era;
  return era === '2025-11-25' || era === '2026-07-28' ? era : 'auto';
}

export async function callThroughGatewaySession(server: ServerRow, auth: UpstreamAuth, limits: SessionLimits, method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<GatewayAnswer> {
  let session: McpSession | null = null;
  try {
    session = await McpSession.open(server.server_url, auth, { ...limits, era: eraOf(server), signal, clientCapabilities: {} });
    return { kind: 'result', result: await session.request(method, params, { signal }) };
  } catch (err) {
    if (!(err instanceof McpClientError)) throw err;
    if (err.kind === 'rpc_error' && err.rpc && session !== null) return { kind: 'rpc_error', error: err.rpc };
    return { kind: 'failure', error: err };
  } finally {
    await session?.close();
  }
}
