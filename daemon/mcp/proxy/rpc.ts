// JSON-RPC 2.0 on the proxy: what a request body may be, and the error objects the proxy answers
// with (contract: {jsonrpc, id, error: {code, message, data: {reason, approval_id?}}}; HTTP 200
// except -32008, which is 403, and the protocol refusals -32020 / -32600 / -32602).
import { MCP_RPC_ERRORS, type McpRpcReason } from '../../../shared/errors.js';

export type RpcId = string | number | null;

export type RpcMessage =
  | {
      readonly kind: 'request';
      readonly id: string | number;
      readonly method: string;
      readonly params: Record<string, unknown> | undefined;
    }
  | { readonly kind: 'notification'; readonly method: string; readonly params: Record<string, unknown> | undefined }
  /** A client's answer to a server-to-client request (sampling, elicitation, roots). */
  | { readonly kind: 'response'; readonly id: RpcId };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The message in a request body, or a detail saying why it is none. Batches are refused. */
export function parseMessage(body: unknown): RpcMessage | { invalid: string } {
  if (Array.isArray(body)) return { invalid: 'JSON-RPC batches are not accepted; send one message per request' };
  if (!isObject(body) || body.jsonrpc !== '2.0') return { invalid: 'the body is not a JSON-RPC 2.0 message' };
  const { id, method, params } = body;
  if (id !== undefined && id !== null && typeof id !== 'string' && !(typeof id === 'number' && Number.isFinite(id)))
    return { invalid: 'id must be a string or a number' };
  if (method === undefined) {
    if (!('result' in body) && !('error' in body)) return { invalid: 'a message without a method must be a response' };
    return { kind: 'response', id: (id ?? null) as RpcId };
  }
  if (typeof method !== 'string' || method === '') return { invalid: 'method must be a non-empty string' };
  if (params !== undefined && !isObject(params)) return { invalid: 'params must be an object' };
  if (id === undefined || id === null) return { kind: 'notification', method, params };
  return { kind: 'request', id: id as string | number, method, params };
}

export const idOf = (m: RpcMessage | { invalid: string }): RpcId => ('kind' in m && m.kind !== 'notification' ? m.id : null);

export interface RpcErrorReply {
  readonly status: number;
  readonly body: { jsonrpc: '2.0'; id: RpcId; error: { code: number; message: string; data: Record<string, unknown> } };
}

/** The error object for `reason`; `data` adds fields beside `reason` (approval_id, trace_id, ...). */
export function rpcError(id: RpcId, reason: McpRpcReason, data: Record<string, unknown> = {}, message?: string): RpcErrorReply {
  const spec = MCP_RPC_ERRORS[reason];
  return {
    status: spec.status,
    body: { jsonrpc: '2.0', id, error: { code: spec.rpc, message: message ?? spec.message, data: { reason, ...data } } },
  };
}
