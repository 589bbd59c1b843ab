// What an upstream failure amounts to, for both ways a call reaches the upstream (forward.ts's
// relay, gateway-session.ts's one-off session): the JSON-RPC refusal the client gets (-32007
// unreachable or timed out, -32008 sign-in, -32006 anything else) and how mcp_call_outcomes
// records it.
import type { ServerResponse } from 'node:http';
import type { McpRpcReason } from '../../../shared/errors.js';
import type { McpFailureKind } from '../client/errors.js';
import { rpcError, type RpcId } from './rpc.js';

/** What happened to one forwarded message, as mcp_call_outcomes records it. */
export interface Seen {
  outcome: string;
  rpcCode: number | null;
}

const UNREACHABLE_KINDS = new Set<McpFailureKind>(['unreachable', 'timeout', 'forbidden_address']);

/** The JSON-RPC refusal an upstream failure amounts to. */
export function failureReason(kind: McpFailureKind): McpRpcReason {
  return UNREACHABLE_KINDS.has(kind)
    ? 'UPSTREAM_UNREACHABLE'
    : kind === 'auth_unsupported' || kind === 'auth_token_missing'
      ? 'UPSTREAM_AUTH_UNAVAILABLE'
      : 'UPSTREAM_INVALID_RESPONSE';
}

/** How an upstream failure reads in mcp_call_outcomes: outcome and the JSON-RPC code answered. */
export function failureOutcome(kind: McpFailureKind): Seen {
  const reason = failureReason(kind);
  const rpcCode = rpcError(null, reason).body.error.code;
  return { outcome: kind === 'timeout' ? 'timeout' : reason === 'UPSTREAM_UNREACHABLE' ? 'unreachable' : 'invalid_response', rpcCode };
}

/** Writes a JSON-RPC error as the whole answer. */
export function sendRpcError(
  res: ServerResponse,
  id: RpcId,
  reason: McpRpcReason,
  data: Record<string, unknown>,
  extra: Readonly<Record<string, string>>,
): void {
  const reply = rpcError(id, reason, data);
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, { ...extra, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
