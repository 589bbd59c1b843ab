// A caller that sends a bare JSON-RPC request (no MCP session of its own: no Mcp-Session-Id, no
// MCP-Protocol-Version, not initialize), as `curl` or `gatewayctl proxy call` do, is served
// through a one-off session the gateway opens itself (client/session.ts McpSession, in the era the last
// scan found, so no probe): handshake, the one request, goodbye. The answer is the upstream's
// result or its JSON-RPC error under the caller's id; upstream failures map as in forward.ts. Both
// the tools/call path (steps/forward.ts) and every other method (handler.ts) answer through here.
// Such a session declares no client capabilities: nobody is there to answer a server's sampling,
// elicitation or roots request, so the server must not send one (it answers the tool's call as a
// client without them).
import type { ServerResponse } from 'node:http';
import type { UpstreamAuth } from '../client/upstream-auth.js';
import { McpSession, type Era } from '../client/session.js';
import { McpClientError, type JsonRpcErrorObject } from '../client/errors.js';
import type { Framed } from '../client/framing.js';
import type { ExchangeLimits } from '../client/http-exchange.js';
import type { ServerRow } from '../servers/server-rows.js';
import type { RelayResult } from './relay-request.js';
import { failureOutcome, failureReason, sendRpcError } from './upstream-failure.js';
import type { RpcId } from './rpc.js';

export type GatewayAnswer =
  | { readonly kind: 'result'; readonly result: Record<string, unknown> }
  | { readonly kind: 'rpc_error'; readonly error: JsonRpcErrorObject }
  | { readonly kind: 'failure'; readonly error: McpClientError };

export type SessionLimits = ExchangeLimits;

function eraOf(server: ServerRow): 'auto' | Era {
  const era = (server.scan_result as { era?: unknown } | null)?.era;
  return era === '2025-11-25' || era === '2026-07-28' ? era : 'auto';
}

export async function callThroughGatewaySession(
  server: ServerRow,
  auth: UpstreamAuth,
  limits: SessionLimits,
  method: string,
  params: Record<string, unknown>,
  signal: AbortSignal,
): Promise<GatewayAnswer> {
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

export interface GatewayCall {
  readonly server: ServerRow;
  readonly auth: UpstreamAuth;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly rpcId: RpcId;
  /** Headers the proxy adds to the answer (governance headers). */
  readonly extraHeaders: Readonly<Record<string, string>>;
  /** Rewrites a result before it goes back (tools/list filtering). */
  readonly transform?: (result: Record<string, unknown>) => Record<string, unknown>;
  /** Rewrites the whole answer before it goes back (content inspection, proxy/results.ts): the session matched it to the request. */
  readonly inspect?: (framed: Framed) => unknown | Promise<unknown>;
  /** Added to the error data of an upstream failure (the decision trace's id). */
  readonly failureData?: Readonly<Record<string, unknown>>;
}

/** Makes the call through a gateway session and writes the answer; never throws for upstream faults. */
export async function answerThroughGatewaySession(res: ServerResponse, call: GatewayCall, limits: SessionLimits): Promise<RelayResult> {
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  const started = performance.now();
  const answer = await callThroughGatewaySession(call.server, call.auth, limits, call.method, call.params, gone.signal);
  const latencyMs = performance.now() - started;
  if (answer.kind === 'failure') {
    const upstreamStatus = answer.error.status ?? null;
    if (answer.error.kind === 'aborted') return { upstreamStatus, outcome: 'client_gone', rpcCode: null, latencyMs };
    sendRpcError(
      res,
      call.rpcId,
      failureReason(answer.error.kind),
      { detail: answer.error.message, ...call.failureData },
      call.extraHeaders,
    );
    return { upstreamStatus, ...failureOutcome(answer.error.kind), latencyMs };
  }
  const body =
    answer.kind === 'result'
      ? { jsonrpc: '2.0', id: call.rpcId, result: call.transform ? call.transform(answer.result) : answer.result }
      : { jsonrpc: '2.0', id: call.rpcId, error: answer.error };
  const text = JSON.stringify(call.inspect ? await call.inspect({ role: 'answer', message: body }) : body);
  res.writeHead(200, { ...call.extraHeaders, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  return {
    upstreamStatus: 200,
    outcome: answer.kind === 'result' ? 'ok' : 'rpc_error',
    rpcCode: answer.kind === 'rpc_error' ? answer.error.code : null,
    latencyMs,
  };
}
