// One HTTP exchange with an MCP endpoint (Streamable HTTP): POST one JSON-RPC message and read the
// answer, a JSON body or an SSE stream in which the response with the matching id is picked and
// notifications are skipped. Every read is bounded: connect + first byte and body idle by
// `timeoutMs`, the exchange by its signal, one JSON answer or one SSE event by `responseLimitBytes`.
import type { Dispatcher } from 'undici';
import { McpClientError, toClientError, type JsonRpcErrorObject } from './errors.js';
import { SseParser } from './sse.js';

export type RpcId = number | string;

export type JsonRpcResponse =
  | { readonly id: RpcId | null; readonly result: Record<string, unknown> }
  | { readonly id: RpcId | null; readonly error: JsonRpcErrorObject };

export interface ExchangeLimits {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly responseLimitBytes: number;
}

export type PostOutcome =
  /** 2xx with the JSON-RPC response to the message (requests only). */
  | { readonly kind: 'response'; readonly status: number; readonly headers: HttpHeaders; readonly response: JsonRpcResponse }
  /** 2xx without a body to read: how a notification is taken. */
  | { readonly kind: 'accepted'; readonly status: number; readonly headers: HttpHeaders }
  /** Outside 2xx (not 401/403); `response` when the body was a JSON-RPC error. */
  | { readonly kind: 'refused'; readonly status: number; readonly headers: HttpHeaders; readonly response: JsonRpcResponse | undefined };

type HttpHeaders = Readonly<Record<string, string | string[] | undefined>>;
type Body = Dispatcher.ResponseData['body'];

// A refusal is read only for the era decision and diagnostics; its body is never large legitimately.
const REFUSAL_BODY_LIMIT = 64 * 1024;

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

function mediaType(headers: HttpHeaders): string {
  const raw = headers['content-type'];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return (value ?? '').split(';')[0].trim().toLowerCase();
}

async function readBounded(body: Body, limit: number, declared: string | string[] | undefined): Promise<Buffer> {
  if (typeof declared === 'string' && Number(declared) > limit) {
    body.destroy();
    throw new McpClientError('too_large', `an upstream JSON answer exceeds ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new McpClientError('too_large', `an upstream JSON answer exceeds ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
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
  const value = parseJson((await readBounded(body, limit, headers['content-length'])).toString('utf8'), 'the upstream answer');
  const response = asResponse(value);
  if (!response || !matches(response, id)) throw new McpClientError('invalid_response', 'the upstream answer is not the JSON-RPC response to the request');
  return response;
}

async function readSseResponse(body: Body, limit: number, id: RpcId): Promise<JsonRpcResponse> {
  const parser = new SseParser(limit);
  for await (const chunk of body as AsyncIterable<Buffer>) {
    for (const event of parser.push(chunk)) {
      if (event.type !== 'message' || event.data.trim() === '') continue;
      const response = asResponse(parseJson(event.data, 'an upstream SSE event'));
      // Notifications, server requests and answers to other requests: not ours to act on.
      if (response && matches(response, id)) return response;
    }
  }
  throw new McpClientError('invalid_response', 'the upstream event stream ended without the response');
}

async function readRefusal(body: Body, headers: HttpHeaders): Promise<JsonRpcResponse | undefined> {
  if (mediaType(headers) !== 'application/json') {
    await body.dump({ limit: REFUSAL_BODY_LIMIT }).catch(() => undefined);
    return undefined;
  }
  try {
    return asResponse(JSON.parse((await readBounded(body, REFUSAL_BODY_LIMIT, headers['content-length'])).toString('utf8')));
  } catch {
    return undefined;
  }
}

/**
 * POSTs one JSON-RPC message; `id` is the request's id, undefined for a notification. Throws
 * McpClientError (auth_failed on 401/403; transport failures mapped by code).
 */
export async function postMessage(limits: ExchangeLimits, url: URL, headers: Record<string, string>, message: object, id: RpcId | undefined, signal: AbortSignal): Promise<PostOutcome> {
  try {
    const res = await limits.dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(message),
      signal,
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
    });
    const { statusCode: status, headers: got, body } = res;
    // Reads below may stop early and destroy the body; its late 'error' then has nowhere to go.
    body.on('error', () => undefined);
    if (status === 401 || status === 403) {
      await body.dump({ limit: REFUSAL_BODY_LIMIT }).catch(() => undefined);
      throw new McpClientError('auth_failed', `the upstream server refused the sign-in (HTTP ${status})`, { status });
    }
    if (status < 200 || status > 299) return { kind: 'refused', status, headers: got, response: await readRefusal(body, got) };
    const type = mediaType(got);
    if (id === undefined || (status === 202 && type === '') || status === 204) {
      await body.dump({ limit: REFUSAL_BODY_LIMIT }).catch(() => undefined);
      return { kind: 'accepted', status, headers: got };
    }
    if (type === 'application/json') return { kind: 'response', status, headers: got, response: await readJsonResponse(body, got, limits.responseLimitBytes, id) };
    if (type === 'text/event-stream') return { kind: 'response', status, headers: got, response: await readSseResponse(body, limits.responseLimitBytes, id) };
    body.destroy();
    throw new McpClientError('invalid_response', `the upstream answer has content type "${type}", not JSON or SSE`, { status });
  } catch (err) {
    throw toClientError(err, signal);
  }
}

/** DELETE on the endpoint (2025 era: ends a session). The answer is drained and ignored. */
export async function deleteSession(limits: ExchangeLimits, url: URL, headers: Record<string, string>, signal: AbortSignal): Promise<number> {
  try {
    const res = await limits.dispatcher.request({
      origin: url.origin, path: `${url.pathname}${url.search}`, method: 'DELETE', headers, signal,
      headersTimeout: limits.timeoutMs, bodyTimeout: limits.timeoutMs,
    });
    await res.body.dump({ limit: REFUSAL_BODY_LIMIT }).catch(() => undefined);
    return res.statusCode;
  } catch (err) {
    throw toClientError(err, signal);
  }
}
