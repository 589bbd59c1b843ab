// One HTTP exchange with an MCP endpoint (Streamable HTTP): POST one JSON-RPC message and read the
// answer, a JSON body or an SSE stream in which the response with the matching id is picked and
// notifications are skipped. Every read is bounded (deadline.ts): connect + response headers by
// `timeoutMs` (a tools/call's headers by the idle deadline, when longer), then `idleTimeoutMs`
// without a complete SSE event or comment (a JSON body must be whole within it), the exchange by
// `callTimeoutMs` and its signal, one JSON answer or one SSE event by `responseLimitBytes` (a JSON
// answer is refused on its declared length before a byte of it is read).
import type { Dispatcher } from 'undici';
import { discard, readBoundedJson, REFUSAL_BODY_LIMIT, type Body } from './bounded-read.js';
import { headersWaitMs, UpstreamDeadline } from './deadline.js';
import { McpClientError, toClientError, type JsonRpcErrorObject } from './errors.js';
import { SseParser } from './sse.js';

export type RpcId = number | string;

export type JsonRpcResponse =
  | { readonly id: RpcId | null; readonly result: Record<string, unknown> }
  | { readonly id: RpcId | null; readonly error: JsonRpcErrorObject };

export interface ExchangeLimits {
  readonly dispatcher: Dispatcher;
  /** Connect + response headers (GATEWAY_UPSTREAM_TIMEOUT_SECONDS). */
  readonly timeoutMs: number;
  /** Between complete SSE events or comments (GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS). */
  readonly idleTimeoutMs: number;
  /** One whole exchange (GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS); 0 = bounded by the signal only. */
  readonly callTimeoutMs: number;
  readonly responseLimitBytes: number;
}

/** The deadline settings' names, shown in a timeout's detail. */
export const DEADLINE_SETTINGS = {
  idleSetting: 'GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS',
  totalSetting: 'GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS',
} as const;

export type PostOutcome =
  /** 2xx with the JSON-RPC response to the message (requests only). */
  | { readonly kind: 'response'; readonly status: number; readonly headers: HttpHeaders; readonly response: JsonRpcResponse }
  /** 2xx without a body to read: how a notification is taken. */
  | { readonly kind: 'accepted'; readonly status: number; readonly headers: HttpHeaders }
  /** Outside 2xx (not 401/403); `response` when the body was a JSON-RPC error. */
  | { readonly kind: 'refused'; readonly status: number; readonly headers: HttpHeaders; readonly response: JsonRpcResponse | undefined };

type HttpHeaders = Readonly<Record<string, string | string[] | undefined>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The JSON-RPC response in `value`, or undefined when it is none (a notification, a request, junk). */
export function asResponse(value: unknown): JsonRpcResponse | undefined {
  if (!isObject(value) || value.jsonrpc !== '2.0' || 'method' in value) return undefined;
  const id = value.id;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') return undefined;
  if ('result' in value && !('error' in value)) return isObject(value.result) ? { id, result: value.result } : undefined;
  const error = value.error;
  if (!isObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return undefined;
  return { id, error: { code: error.code as number, message: error.message, ...('data' in error ? { data: error.data } : {}) } };
}

/** The media type of an answer's Content-Type, lower-cased, without parameters ('' when absent). */
export function mediaType(headers: HttpHeaders): string {
  const raw = headers['content-type'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return (value ?? '').split(';')[0].trim().toLowerCase();
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new McpClientError('invalid_response', `${what} is not JSON`);
  }
}

function matches(response: JsonRpcResponse, id: RpcId): boolean {
  return response.id === id || (response.id === null && 'error' in response);
}

async function readJsonResponse(body: Body, headers: HttpHeaders, limit: number, id: RpcId): Promise<JsonRpcResponse> {
  const { value } = await readBoundedJson(body, limit, headers['content-length']);
  const response = asResponse(value);
  if (!response || !matches(response, id))
    throw new McpClientError('invalid_response', 'the upstream answer is not the JSON-RPC response to the request');
  return response;
}

async function readSseResponse(body: Body, limit: number, id: RpcId, deadline: UpstreamDeadline): Promise<JsonRpcResponse> {
  const parser = new SseParser(limit);
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const before = parser.progress;
    const events = parser.push(chunk);
    if (parser.progress !== before) deadline.progress();
    for (const event of events) {
      if (event.type !== 'message' || event.data === null || event.data.trim() === '') continue;
      const response = asResponse(parseJson(event.data, 'an upstream SSE event'));
      // Notifications, server requests and answers to other requests: not ours to act on.
      if (response && matches(response, id)) return response;
    }
  }
  throw new McpClientError('invalid_response', 'the upstream event stream ended without the response');
}

async function readRefusal(body: Body, headers: HttpHeaders): Promise<JsonRpcResponse | undefined> {
  if (mediaType(headers) !== 'application/json') {
    await discard(body);
    return undefined;
  }
  try {
    return asResponse((await readBoundedJson(body, REFUSAL_BODY_LIMIT, headers['content-length'])).value);
  } catch {
    return undefined;
  }
}

/**
 * POSTs one JSON-RPC message; `id` is the request's id, undefined for a notification. Throws
 * McpClientError (auth_failed on 401/403; transport failures mapped by code).
 */
export async function postMessage(
  limits: ExchangeLimits,
  url: URL,
  headers: Record<string, string>,
  message: object,
  id: RpcId | undefined,
  signal: AbortSignal,
): Promise<PostOutcome> {
  const deadline = new UpstreamDeadline({ idleMs: limits.idleTimeoutMs, totalMs: limits.callTimeoutMs, ...DEADLINE_SETTINGS }, signal);
  const method = (message as { method?: unknown }).method;
  try {
    const res = await limits.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(message),
      signal: deadline.signal,
      headersTimeout: headersWaitMs(typeof method === 'string' ? method : undefined, limits.timeoutMs, limits.idleTimeoutMs),
      bodyTimeout: 0, // the deadline's idle clock counts events, not bytes
    });
    deadline.progress();
    const { statusCode: status, headers: got, body } = res;
    // Reads below may stop early and destroy the body; its late 'error' then has nowhere to go.
    body.on('error', () => undefined);
    if (status === 401 || status === 403) {
      await discard(body);
      throw new McpClientError('auth_failed', `the upstream server refused the sign-in (HTTP ${status})`, { status });
    }
    if (status < 200 || status > 299) return { kind: 'refused', status, headers: got, response: await readRefusal(body, got) };
    const type = mediaType(got);
    if (id === undefined || (status === 202 && type === '') || status === 204) {
      await discard(body);
      return { kind: 'accepted', status, headers: got };
    }
    if (type === 'application/json')
      return { kind: 'response', status, headers: got, response: await readJsonResponse(body, got, limits.responseLimitBytes, id) };
    if (type === 'text/event-stream')
      return { kind: 'response', status, headers: got, response: await readSseResponse(body, limits.responseLimitBytes, id, deadline) };
    body.destroy();
    throw new McpClientError('invalid_response', `the upstream answer has content type "${type}", not JSON or SSE`, { status });
  } catch (err) {
    throw toClientError(err, deadline.signal);
  } finally {
    deadline.dispose();
  }
}

/** DELETE on the endpoint (2025 era: ends a session). The answer is drained and ignored. */
export async function deleteSession(
  limits: ExchangeLimits,
  url: URL,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<number> {
  try {
    const res = await limits.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'DELETE',
      headers,
      signal,
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
    await discard(res.body);
    return res.statusCode;
  } catch (err) {
    throw toClientError(err, signal);
  }
}
