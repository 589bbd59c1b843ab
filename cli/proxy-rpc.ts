// One JSON-RPC request through the gateway's MCP proxy (POST /api/v1/mcp/proxy/{server_id}), sent
// bare (no MCP session of its own) so the gateway serves it through a one-off upstream session. The
// proxy answers a JSON-RPC error body even under a 4xx (-32600, -32602, -32008), so unlike
// ApiClient this reads a JSON-RPC answer whatever the status; a gateway error body is a refusal.
import type { Connection } from './config.js';
import { GatewayRefusal, GatewayUnavailable } from './errors.js';
import { tokenSourceOf } from './oidc-tokens.js';

const TIMEOUT_MS = 60_000;

export interface RpcErrorObject {
  code: number;
  message: string;
  data?: { reason?: string; trace_id?: string; approval_id?: string; [key: string]: unknown };
}

export type RpcAnswer =
  | { readonly kind: 'result'; readonly id: unknown; readonly result: unknown }
  | { readonly kind: 'error'; readonly id: unknown; readonly error: RpcErrorObject };

export interface RpcRequest {
  readonly serverId: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  /** Extra request headers (X-Agent-Id, X-Gateway-Approval-Id). */
  readonly headers: Record<string, string>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** undici's reason for a failed fetch: `cause.code` where there is one (never the message text). */
function transportReason(err: unknown): string {
  if (err instanceof DOMException && err.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000}s`;
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return typeof cause?.message === 'string' ? cause.message : 'unknown';
}

function asAnswer(body: unknown): RpcAnswer | null {
  if (!isObject(body) || body.jsonrpc !== '2.0') return null;
  if ('result' in body) return { kind: 'result', id: body.id, result: body.result };
  const e = body.error;
  if (isObject(e) && typeof e.code === 'number' && typeof e.message === 'string') {
    return { kind: 'error', id: body.id, error: e as unknown as RpcErrorObject };
  }
  return null;
}

export async function proxyRequest(connection: Connection, userAgent: string, req: RpcRequest): Promise<RpcAnswer> {
  const url = `${connection.url}/api/v1/mcp/proxy/${encodeURIComponent(req.serverId)}`;
  const message = { jsonrpc: '2.0', id: 1, method: req.method, params: req.params };
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: {
        ...req.headers,
        accept: 'application/json',
        'content-type': 'application/json',
        authorization: `Bearer ${await tokenSourceOf(connection).current()}`,
        'user-agent': userAgent,
      },
      body: JSON.stringify(message),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    text = await res.text();
  } catch (err) {
    throw new GatewayUnavailable(`cannot reach the gateway at ${connection.url} (${transportReason(err)})`);
  }
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  const answer = asAnswer(body);
  if (answer) return answer;
  const e = isObject(body) && isObject(body.error) ? body.error : null;
  if (e && typeof e.code === 'string' && typeof e.message === 'string') {
    throw new GatewayRefusal(res.status, e.code, e.message, typeof e.request_id === 'string' ? e.request_id : undefined);
  }
  // 503 without a body: the decision could not be recorded, so nothing was forwarded.
  if (res.status === 503 && !text)
    throw new GatewayUnavailable(`${connection.url} answered 503: the call could not be recorded and was not forwarded`);
  if (res.status >= 500 || res.ok)
    throw new GatewayUnavailable(`${connection.url} answered HTTP ${res.status} without a JSON-RPC answer; is it a gateway?`);
  throw new GatewayRefusal(
    res.status,
    `http_${res.status}`,
    `${connection.url} answered without a gateway error body; is it a gateway?`,
    undefined,
  );
}
