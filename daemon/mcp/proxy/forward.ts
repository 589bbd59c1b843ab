// Forwarding to the upstream MCP server, through the SSRF-guarded dispatcher only (deps.upstream).
//
// Relay (the caller speaks MCP itself: initialize, or a request carrying Mcp-Session-Id or
// MCP-Protocol-Version): the message goes upstream with the allow-listed headers and the server's
// sign-in; the answer comes back as it is. A JSON answer is read (bounded by
// GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES) and checked to be JSON, then sent byte for byte; an SSE
// answer is streamed through chunk by chunk as it arrives (progress notifications and
// server-to-client requests reach the client at once), each event bounded by the same limit.
// Only a tools/list answer is rewritten (list-filter.ts). When the client goes away the upstream
// request is aborted.
//
// Upstream failures: no connection, or no response headers within GATEWAY_UPSTREAM_TIMEOUT_SECONDS
// -> -32007; a 3xx, 5xx, 401/403 (the server refused the gateway's sign-in), a 2xx that is not JSON
// or SSE, or an answer over the size limit -> -32006. Other 4xx answers (e.g. 404 for an expired
// session, 400 for a malformed request) are passed through as they are: the transport defines them.
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import type { McpRpcReason } from '../../../shared/errors.js';
import { McpClientError, toClientError, type McpFailureKind } from '../errors.js';
import { SseParser } from '../sse.js';
import { FORWARDED_RESPONSE } from './headers.js';
import { rpcError, type RpcId } from './rpc.js';

export interface UpstreamLimits {
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly responseLimitBytes: number;
}

export interface RelayResult {
  readonly upstreamStatus: number | null;
  /** ok | rpc_error | unreachable | invalid_response | http_error | client_gone */
  readonly outcome: string;
  readonly rpcCode: number | null;
  readonly latencyMs: number;
}

export interface RelayRequest {
  readonly url: URL;
  readonly method: 'POST' | 'GET' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** The JSON-RPC id the caller waits an answer for; undefined for notifications and responses. */
  readonly rpcId: string | number | undefined;
  /** Rewrites the answer to rpcId (tools/list filtering). */
  readonly transform?: (message: unknown) => unknown;
  /** Headers the proxy adds to the answer (governance headers). */
  readonly extraHeaders: Readonly<Record<string, string>>;
  /** Called with an Mcp-Session-Id the upstream answered with, before the answer is sent on. */
  readonly onSession?: (sessionId: string) => Promise<void>;
  /** Called with the upstream's status before anything of the answer is sent on. */
  readonly onStatus?: (status: number) => Promise<void>;
  /** Called when the upstream answered 404 to a request that carried a session id. */
  readonly onSessionGone?: () => Promise<void>;
}

/** A failure of the proxy's own hook (a database write), not of the upstream: rethrown as it is. */
class HookFailure extends Error {
  constructor(override readonly cause: unknown) { super('relay hook failed'); }
}

const REFUSAL_BODY_LIMIT = 64 * 1024;
type Body = Dispatcher.ResponseData['body'];

const UNREACHABLE_KINDS = new Set<McpFailureKind>(['unreachable', 'timeout', 'forbidden_address']);

/** The JSON-RPC refusal an upstream failure amounts to. */
export function failureReason(kind: McpFailureKind): McpRpcReason {
  return UNREACHABLE_KINDS.has(kind) ? 'UPSTREAM_UNREACHABLE' : kind === 'auth_unsupported' || kind === 'auth_token_missing' ? 'UPSTREAM_AUTH_UNAVAILABLE' : 'UPSTREAM_INVALID_RESPONSE';
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

const mediaType = (h: Record<string, string | string[] | undefined>): string => (single(h['content-type']) ?? '').split(';')[0]!.trim().toLowerCase();

function answerHeaders(got: Record<string, string | string[] | undefined>, extra: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_RESPONSE) {
    const v = single(got[name]);
    if (v !== undefined) out[name] = v;
  }
  return { ...out, ...extra };
}

async function readBounded(body: Body, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      throw new McpClientError('too_large', `an upstream answer exceeds ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

async function write(res: ServerResponse, chunk: string | Buffer): Promise<void> {
  if (!res.write(chunk)) await new Promise<void>((resolve) => { res.once('drain', resolve); res.once('close', resolve); });
}

/** Writes a JSON-RPC error as the whole answer. */
export function sendRpcError(res: ServerResponse, id: RpcId, reason: McpRpcReason, data: Record<string, unknown>, extra: Readonly<Record<string, string>>): void {
  const reply = rpcError(id, reason, data);
  const text = JSON.stringify(reply.body);
  res.writeHead(reply.status, { ...extra, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** ok or rpc_error (with its code) for the JSON-RPC answer to `id` in `message`. */
function classify(message: unknown, id: string | number | undefined): { outcome: string; rpcCode: number | null } | null {
  if (typeof message !== 'object' || message === null || (message as { id?: unknown }).id !== id || 'method' in message) return null;
  const error = (message as { error?: { code?: unknown } }).error;
  return error ? { outcome: 'rpc_error', rpcCode: typeof error.code === 'number' ? error.code : null } : { outcome: 'ok', rpcCode: null };
}

function sseEvent(type: string, data: string): string {
  return `${type === 'message' ? '' : `event: ${type}\n`}${data.split('\n').map((l) => `data: ${l}`).join('\n')}\n\n`;
}

interface Seen { outcome: string; rpcCode: number | null }

async function relayJson(res: ServerResponse, req: RelayRequest, status: number, headers: Record<string, string>, body: Body, limit: number): Promise<Seen> {
  const raw = await readBounded(body, limit);
  let message: unknown;
  try {
    message = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new McpClientError('invalid_response', 'the upstream answer is not JSON');
  }
  const seen = classify(message, req.rpcId) ?? { outcome: 'ok', rpcCode: null };
  const out = req.transform ? Buffer.from(JSON.stringify(req.transform(message)), 'utf8') : raw;
  res.writeHead(status, { ...headers, 'content-length': out.length });
  res.end(out);
  return seen;
}

async function relaySse(res: ServerResponse, req: RelayRequest, status: number, headers: Record<string, string>, body: Body, limit: number): Promise<Seen> {
  const parser = new SseParser(limit);
  let seen: Seen = { outcome: 'invalid_response', rpcCode: null };
  res.writeHead(status, headers);
  res.flushHeaders();
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const events = parser.push(chunk);
      const rebuilt: string[] = [];
      for (const event of events) {
        let message: unknown = undefined;
        try { message = JSON.parse(event.data); } catch { /* not ours to judge: passed on as it came */ }
        seen = classify(message, req.rpcId) ?? seen;
        if (req.transform) rebuilt.push(sseEvent(event.type, message === undefined ? event.data : JSON.stringify(req.transform(message))));
      }
      if (req.transform) { if (rebuilt.length > 0) await write(res, rebuilt.join('')); } else await write(res, chunk);
    }
  } catch (err) {
    if (!(err instanceof McpClientError) || err.kind !== 'too_large') throw err;
    body.destroy();
    const reply = rpcError(req.rpcId ?? null, 'UPSTREAM_INVALID_RESPONSE', { detail: err.message });
    res.end(`\n\n${sseEvent('message', JSON.stringify(reply.body))}`);
    return { outcome: 'invalid_response', rpcCode: -32006 };
  }
  res.end();
  return seen;
}

async function passBounded(res: ServerResponse, status: number, headers: Record<string, string>, body: Body): Promise<void> {
  let raw: Buffer;
  try {
    raw = await readBounded(body, REFUSAL_BODY_LIMIT);
  } catch {
    raw = Buffer.alloc(0);
  }
  res.writeHead(status, { ...headers, 'content-length': raw.length });
  res.end(raw);
}

type Upstream = Dispatcher.ResponseData;

/** The answer to a request the upstream answered with a status outside 2xx. */
async function answerRefusal(res: ServerResponse, req: RelayRequest, up: Upstream, headers: Record<string, string>): Promise<Seen> {
  const status = up.statusCode;
  if (status >= 400 && status < 500 && status !== 401 && status !== 403) {
    if (status === 404 && req.headers['mcp-session-id'] !== undefined) await hook(req.onSessionGone?.());
    await passBounded(res, status, headers, up.body);
    return { outcome: 'http_error', rpcCode: null };
  }
  await up.body.dump({ limit: REFUSAL_BODY_LIMIT }).catch(() => undefined);
  const detail = status === 401 || status === 403 ? `the upstream server refused the gateway's sign-in (HTTP ${status})` : `the upstream server answered HTTP ${status}`;
  sendRpcError(res, req.rpcId ?? null, 'UPSTREAM_INVALID_RESPONSE', { detail, upstream_status: status }, req.extraHeaders);
  return { outcome: 'http_error', rpcCode: -32006 };
}

/** The answer to a 2xx: relayed by its media type; one that is neither JSON nor SSE is invalid. */
async function answerSuccess(res: ServerResponse, req: RelayRequest, up: Upstream, headers: Record<string, string>, limit: number): Promise<Seen> {
  const status = up.statusCode;
  const session = single(up.headers['mcp-session-id']);
  if (session !== undefined && req.onSession) await hook(req.onSession(session));
  const type = mediaType(up.headers);
  if (type === 'text/event-stream') return relaySse(res, req, status, headers, up.body, limit);
  if (req.method !== 'POST') {
    await passBounded(res, status, headers, up.body);
    return { outcome: 'ok', rpcCode: null };
  }
  if (req.rpcId === undefined || status === 202 || status === 204 || type === '') {
    await up.body.dump({ limit: REFUSAL_BODY_LIMIT }).catch(() => undefined);
    res.writeHead(status, headers);
    res.end();
    return { outcome: 'ok', rpcCode: null };
  }
  if (type === 'application/json') return relayJson(res, req, status, headers, up.body, limit);
  up.body.destroy();
  throw new McpClientError('invalid_response', `the upstream answer has content type "${type}", not JSON or SSE`);
}

/** Runs one of the proxy's own hooks; its failure is the proxy's, not the upstream's. */
async function hook(p: Promise<void> | undefined): Promise<void> {
  await p?.catch((cause: unknown) => { throw new HookFailure(cause); });
}

/** Sends one request upstream and the answer to `res`; never throws for upstream faults. */
export async function relay(res: ServerResponse, req: RelayRequest, limits: UpstreamLimits): Promise<RelayResult> {
  const started = performance.now();
  const gone = new AbortController();
  res.once('close', () => { if (!res.writableFinished) gone.abort(); });
  let status: number | null = null;
  let seen: Seen;
  try {
    const up = await limits.dispatcher.request({
      origin: req.url.origin, path: `${req.url.pathname}${req.url.search}`, method: req.method, headers: req.headers,
      body: req.body, signal: gone.signal, headersTimeout: limits.timeoutMs, bodyTimeout: req.method === 'GET' ? 0 : limits.timeoutMs,
    });
    status = up.statusCode;
    up.body.on('error', () => undefined);
    await hook(req.onStatus?.(status));
    const headers = answerHeaders(up.headers, req.extraHeaders);
    seen = status >= 200 && status < 300 ? await answerSuccess(res, req, up, headers, limits.responseLimitBytes) : await answerRefusal(res, req, up, headers);
  } catch (err) {
    if (err instanceof HookFailure) throw err.cause;
    seen = gone.signal.aborted ? { outcome: 'client_gone', rpcCode: null } : failed(res, req, toClientError(err, gone.signal), status);
  }
  return { upstreamStatus: status, ...seen, latencyMs: performance.now() - started };
}

/** An upstream failure as the JSON-RPC answer (or a cut stream, once the answer had begun). */
function failed(res: ServerResponse, req: RelayRequest, failure: McpClientError, status: number | null): Seen {
  const reason = failureReason(failure.kind);
  if (res.headersSent) res.destroy();
  else sendRpcError(res, req.rpcId ?? null, reason, { detail: failure.message, ...(status !== null ? { upstream_status: status } : {}) }, req.extraHeaders);
  return reason === 'UPSTREAM_UNREACHABLE' ? { outcome: 'unreachable', rpcCode: -32007 } : { outcome: 'invalid_response', rpcCode: -32006 };
}
