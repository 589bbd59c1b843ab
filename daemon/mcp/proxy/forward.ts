// Forwarding to the upstream MCP server, through the SSRF-guarded dispatcher only (deps.upstream).
//
// Relay (the caller speaks MCP itself: initialize, or a request carrying Mcp-Session-Id or
// MCP-Protocol-Version): the message goes upstream with the allow-listed headers and the server's
// sign-in; the answer comes back as it is. A JSON answer is read (bounded by
// GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES) and checked to be JSON, then sent byte for byte; an SSE
// answer is streamed through chunk by chunk as it arrives (progress notifications and
// server-to-client requests reach the client at once), each event bounded by the same limit.
// A tools/list answer (list-filter.ts) and an answer whose content is inspected (results.ts: every
// request's answer stream and the GET stream, when a results policy is in force) are rewritten: each
// whole event is parsed, its messages classified (framing.ts: a batch taken apart, the answer's id
// made the request's, strays and junk handed to the transform to be dropped) and emitted again one
// event per message, the event's fields (id, retry, event) kept, comment lines passed on in order,
// and nothing of an event leaves before it is complete. A JSON answer so rewritten is the one
// response to the request or, when it holds none, -32006; a GET answered 2xx with anything but an
// event stream is refused (a client reads any 2xx body of its GET as events). When the client goes
// away the upstream request is aborted.
//
// Time (client/deadline.ts; POST and DELETE, not the long-lived GET stream): connect + response headers
// within GATEWAY_UPSTREAM_TIMEOUT_SECONDS (a tools/call's headers within the idle deadline), then
// no more than GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS without a complete SSE event or comment (a
// JSON body whole within it), and GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS for the whole call. A
// deadline aborts the upstream request; the client gets -32007 if nothing was sent yet, otherwise
// the stream ends (after a -32007 event for the request, when between events and not yet answered).
//
// Upstream failures: no connection, or a time limit -> -32007; a 3xx, 5xx, 401/403 (the server
// refused the gateway's sign-in), a 2xx that is not JSON or SSE, or an answer over the size limit
// -> -32006. Other 4xx answers (e.g. 404 for an expired session, 400 for a malformed request) are
// passed through as they are: the transport defines them.
import type { ServerResponse } from 'node:http';
import type { Dispatcher } from 'undici';
import { MCP_RPC_ERRORS, type McpRpcReason } from '../../../shared/errors.js';
import type { Config } from '../../config.js';
import { discard, readBounded, readBoundedJson, REFUSAL_BODY_LIMIT, type Body } from '../client/bounded-read.js';
import { headersWaitMs, UpstreamDeadline } from '../client/deadline.js';
import { McpClientError, toClientError } from '../client/errors.js';
import { DEADLINE_SETTINGS, type ExchangeLimits, mediaType } from '../client/http-exchange.js';
import { formatSseEvent, SseParser, type SseEvent } from '../client/sse.js';
import { sendStatusError } from '../../http/respond.js';
import { FORWARDED_RESPONSE } from './headers.js';
import { type Framed, StreamFraming } from '../client/framing.js';
import { rpcError } from './rpc.js';
import { failureOutcome, failureReason, sendRpcError, type Seen } from './upstream-failure.js';

export type UpstreamLimits = ExchangeLimits;

/** The proxy's limits on one upstream exchange, from the configuration. */
export function upstreamLimits(config: Config, dispatcher: Dispatcher): UpstreamLimits {
  return {
    dispatcher,
    timeoutMs: config.upstreamTimeoutMs,
    idleTimeoutMs: config.upstreamIdleTimeoutMs,
    callTimeoutMs: config.upstreamCallTimeoutMs,
    responseLimitBytes: config.upstreamResponseLimitBytes,
  };
}

export interface RelayResult {
  readonly upstreamStatus: number | null;
  /** ok | rpc_error | unreachable | timeout | invalid_response | http_error | client_gone */
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
  /** The request's JSON-RPC method (a tools/call may take longer to answer its headers). */
  readonly rpcMethod?: string;
  /**
   * Rewrites each classified message of the answer (tools/list filtering, content inspection); DROP
   * keeps it from the client. With it, SSE events are parsed, framed and emitted again one by one.
   */
  readonly transform?: (framed: Framed) => unknown | Promise<unknown>;
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
  constructor(override readonly cause: unknown) {
    super('relay hook failed');
  }
}

function single(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function answerHeaders(
  got: Record<string, string | string[] | undefined>,
  extra: Readonly<Record<string, string>>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of FORWARDED_RESPONSE) {
    const v = single(got[name]);
    if (v !== undefined) out[name] = v;
  }
  return { ...out, ...extra };
}

/** Writes and waits for the client to take it (or to leave, or for a time limit: then the next read fails). */
async function write(res: ServerResponse, chunk: string | Buffer, signal: AbortSignal): Promise<void> {
  if (res.write(chunk) || signal.aborted) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
    signal.addEventListener('abort', done);
  });
}

/** ok or rpc_error (with its code) for the JSON-RPC answer to `id` in `message`. */
function classify(message: unknown, id: string | number | undefined): { outcome: string; rpcCode: number | null } | null {
  if (typeof message !== 'object' || message === null || (message as { id?: unknown }).id !== id || 'method' in message) return null;
  const error = (message as { error?: { code?: unknown } }).error;
  return error ? { outcome: 'rpc_error', rpcCode: typeof error.code === 'number' ? error.code : null } : { outcome: 'ok', rpcCode: null };
}

/** An error event for the request the caller still waits on. */
function errorEvent(req: RelayRequest, reason: McpRpcReason, detail: string): string {
  return formatSseEvent({ type: 'message', data: JSON.stringify(rpcError(req.rpcId ?? null, reason, { detail }).body) });
}

/** How mcp_call_outcomes records an answer the framing found. */
function seenOf(answer: Record<string, unknown>): Seen {
  const error = answer.error as { code?: unknown } | undefined;
  return error ? { outcome: 'rpc_error', rpcCode: typeof error.code === 'number' ? error.code : null } : { outcome: 'ok', rpcCode: null };
}

async function relayJson(
  res: ServerResponse,
  req: RelayRequest,
  status: number,
  headers: Record<string, string>,
  body: Body,
  declared: string | undefined,
  limit: number,
): Promise<Seen> {
  const { raw, value: message } = await readBoundedJson(body, limit, declared);
  if (!req.transform) {
    const seen = classify(message, req.rpcId) ?? { outcome: 'ok', rpcCode: null };
    res.writeHead(status, { ...headers, 'content-length': raw.length });
    res.end(raw);
    return seen;
  }
  // One body holds one answer: the response to the request, rewritten; anything beside it is dropped (traced).
  let answer: { framed: Record<string, unknown>; out: unknown } | null = null;
  for (const f of new StreamFraming(req.rpcId ?? null).frame(message)) {
    const item: Framed = f.role === 'request' || f.role === 'notification' ? { role: 'junk', why: `a ${f.role} inside a JSON answer` } : f;
    const out = await req.transform(item);
    if (item.role === 'answer' && out !== DROP) answer = { framed: item.message, out };
  }
  if (answer === null) {
    const detail = 'the upstream answer is not the JSON-RPC response to the request';
    sendRpcError(res, req.rpcId ?? null, 'UPSTREAM_INVALID_RESPONSE', { detail, upstream_status: status }, req.extraHeaders);
    return { outcome: 'invalid_response', rpcCode: MCP_RPC_ERRORS.UPSTREAM_INVALID_RESPONSE.rpc };
  }
  const out = Buffer.from(JSON.stringify(answer.out), 'utf8');
  res.writeHead(status, { ...headers, 'content-length': out.length });
  res.end(out);
  return seenOf(answer.framed);
}

/** What a transform returns for a message the client must not see (a server request the gateway refused). */
export const DROP: unique symbol = Symbol('drop');

/**
 * One event as passed on: its messages framed (framing.ts) and each rewritten by the transform, one
 * event per message kept, the event's id and retry on the last; an event with no data goes on as it
 * came, and one whose every message was dropped keeps only its id and retry (a client resumes from them).
 */
async function rewrite(
  event: SseEvent,
  framing: StreamFraming,
  transform: (framed: Framed) => unknown | Promise<unknown>,
): Promise<{ text: string; answer?: Record<string, unknown> }> {
  if (event.data === null || event.data === '') return { text: formatSseEvent(event) };
  let value: unknown;
  let framed: Framed[];
  try {
    value = JSON.parse(event.data);
    framed = framing.frame(value);
  } catch {
    framed = [{ role: 'junk', why: 'event data that is not JSON' }];
  }
  const kept: unknown[] = [];
  let answer: Record<string, unknown> | undefined;
  for (const f of framed) {
    const out = await transform(f);
    if (f.role === 'answer') answer = f.message;
    if (out !== DROP) kept.push(out);
  }
  const { id, retry } = event;
  const marks = { ...(id !== undefined ? { id } : {}), ...(retry !== undefined ? { retry } : {}) };
  if (kept.length === 0)
    return {
      text: id !== undefined || retry !== undefined ? formatSseEvent({ type: event.type, data: null, ...marks }) : '',
      ...(answer ? { answer } : {}),
    };
  const text = kept
    .map((m, i) => formatSseEvent({ type: event.type, data: JSON.stringify(m), ...(i === kept.length - 1 ? marks : {}) }))
    .join('');
  return { text, ...(answer ? { answer } : {}) };
}

async function relaySse(
  res: ServerResponse,
  req: RelayRequest,
  status: number,
  headers: Record<string, string>,
  body: Body,
  limit: number,
  deadline: UpstreamDeadline | null,
  gone: AbortSignal,
): Promise<Seen> {
  const parser = new SseParser(limit);
  const framing = new StreamFraming(req.rpcId ?? null);
  let seen: Seen = { outcome: 'invalid_response', rpcCode: null };
  res.writeHead(status, headers);
  res.flushHeaders();
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const before = parser.progress;
      const items = req.transform ? parser.pushItems(chunk) : parser.push(chunk);
      if (parser.progress !== before) deadline?.progress();
      const rebuilt: string[] = [];
      for (const event of items) {
        if ('comment' in event) {
          rebuilt.push(`:${event.comment}\n`); // keep-alives go on as they came, between whole events
          continue;
        }
        if (req.transform) {
          const out = await rewrite(event, framing, req.transform);
          if (out.answer) seen = seenOf(out.answer);
          rebuilt.push(out.text);
          continue;
        }
        let message: unknown;
        if (event.data !== null)
          try {
            message = JSON.parse(event.data);
          } catch {
            /* not ours to judge: passed on as it came */
          }
        seen = classify(message, req.rpcId) ?? seen;
      }
      const signal = deadline?.signal ?? gone;
      if (req.transform) {
        if (rebuilt.length > 0) await write(res, rebuilt.join(''), signal);
      } else await write(res, chunk, signal);
    }
  } catch (err) {
    if (err instanceof McpClientError && err.kind === 'too_large') {
      body.destroy();
      res.end(`\n\n${errorEvent(req, 'UPSTREAM_INVALID_RESPONSE', err.message)}`);
      return { outcome: 'invalid_response', rpcCode: MCP_RPC_ERRORS.UPSTREAM_INVALID_RESPONSE.rpc };
    }
    if (gone.aborted || deadline === null || !deadline.signal.aborted) throw err;
    // A time limit: the stream ends; the caller learns why when it still waits and nothing is half-sent.
    const failure = toClientError(err, deadline.signal);
    const waiting = req.rpcId !== undefined && seen.outcome === 'invalid_response' && (req.transform !== undefined || parser.atBoundary);
    res.end(waiting ? errorEvent(req, failureReason(failure.kind), failure.message) : undefined);
    return failureOutcome(failure.kind);
  }
  res.end();
  return seen;
}

async function readRefusal(body: Body): Promise<Buffer> {
  try {
    return await readBounded(body, REFUSAL_BODY_LIMIT, undefined);
  } catch {
    return Buffer.alloc(0);
  }
}

async function passBounded(res: ServerResponse, status: number, headers: Record<string, string>, body: Body): Promise<void> {
  const raw = await readRefusal(body);
  res.writeHead(status, { ...headers, 'content-length': raw.length });
  res.end(raw);
}

function isJson(raw: Buffer): boolean {
  try {
    JSON.parse(raw.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

/**
 * An upstream's 4xx goes on with its status; one whose body is not JSON (a bare 405 to the GET
 * stream a server does not offer) carries the gateway's error object instead, and its Allow.
 */
async function passRefusal(res: ServerResponse, req: RelayRequest, up: Upstream, headers: Record<string, string>): Promise<void> {
  const raw = await readRefusal(up.body);
  if (isJson(raw)) {
    res.writeHead(up.statusCode, { ...headers, 'content-length': raw.length });
    res.end(raw);
    return;
  }
  const allow = single(up.headers.allow);
  const { 'content-type': _upstreamType, ...kept } = headers;
  const why = up.statusCode === 405 ? `does not take ${req.method} on its endpoint` : `refused the request with HTTP ${up.statusCode}`;
  sendStatusError(res, up.statusCode, `The upstream MCP server ${why}.`, { ...kept, ...(allow ? { Allow: allow } : {}) });
}

type Upstream = Dispatcher.ResponseData;

/** The answer to a request the upstream answered with a status outside 2xx. */
async function answerRefusal(res: ServerResponse, req: RelayRequest, up: Upstream, headers: Record<string, string>): Promise<Seen> {
  const status = up.statusCode;
  if (status >= 400 && status < 500 && status !== 401 && status !== 403) {
    if (status === 404 && req.headers['mcp-session-id'] !== undefined) await hook(req.onSessionGone?.());
    await passRefusal(res, req, up, headers);
    return { outcome: 'http_error', rpcCode: null };
  }
  await discard(up.body);
  const detail =
    status === 401 || status === 403
      ? `the upstream server refused the gateway's sign-in (HTTP ${status})`
      : `the upstream server answered HTTP ${status}`;
  sendRpcError(res, req.rpcId ?? null, 'UPSTREAM_INVALID_RESPONSE', { detail, upstream_status: status }, req.extraHeaders);
  return { outcome: 'http_error', rpcCode: MCP_RPC_ERRORS.UPSTREAM_INVALID_RESPONSE.rpc };
}

/** The answer to a 2xx: relayed by its media type; one that is neither JSON nor SSE is invalid. */
async function answerSuccess(
  res: ServerResponse,
  req: RelayRequest,
  up: Upstream,
  headers: Record<string, string>,
  limit: number,
  deadline: UpstreamDeadline | null,
  gone: AbortSignal,
): Promise<Seen> {
  const status = up.statusCode;
  const session = single(up.headers['mcp-session-id']);
  if (session !== undefined && req.onSession) await hook(req.onSession(session));
  const type = mediaType(up.headers);
  if (type === 'text/event-stream') return relaySse(res, req, status, headers, up.body, limit, deadline, gone);
  if (req.method === 'GET' && req.transform) {
    // A client reads any 2xx body of its GET as an event stream: one that is not declared so is not relayed.
    await discard(up.body);
    const { 'content-type': _upstreamType, ...kept } = headers;
    sendStatusError(res, 502, `The upstream MCP server answered the event stream with content type "${type}", not an event stream.`, kept);
    return { outcome: 'invalid_response', rpcCode: null };
  }
  if (req.method !== 'POST') {
    await passBounded(res, status, headers, up.body);
    return { outcome: 'ok', rpcCode: null };
  }
  if (req.rpcId === undefined || status === 202 || status === 204 || type === '') {
    await discard(up.body);
    res.writeHead(status, headers);
    res.end();
    return { outcome: 'ok', rpcCode: null };
  }
  if (type === 'application/json') return relayJson(res, req, status, headers, up.body, single(up.headers['content-length']), limit);
  up.body.destroy();
  throw new McpClientError('invalid_response', `the upstream answer has content type "${type}", not JSON or SSE`);
}

/** Runs one of the proxy's own hooks; its failure is the proxy's, not the upstream's. */
async function hook(p: Promise<void> | undefined): Promise<void> {
  await p?.catch((cause: unknown) => {
    throw new HookFailure(cause);
  });
}

/** Sends one request upstream and the answer to `res`; never throws for upstream faults. */
export async function relay(res: ServerResponse, req: RelayRequest, limits: UpstreamLimits): Promise<RelayResult> {
  const started = performance.now();
  const gone = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) gone.abort();
  });
  // The GET stream carries whatever the server sends whenever it sends it: no idle or total limit.
  const deadline =
    req.method === 'GET'
      ? null
      : new UpstreamDeadline({ idleMs: limits.idleTimeoutMs, totalMs: limits.callTimeoutMs, ...DEADLINE_SETTINGS }, gone.signal);
  const signal = deadline?.signal ?? gone.signal;
  let status: number | null = null;
  let seen: Seen;
  try {
    const up = await limits.dispatcher.request({
      origin: req.url.origin,
      path: `${req.url.pathname}${req.url.search}`,
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal,
      headersTimeout: headersWaitMs(req.rpcMethod, limits.timeoutMs, limits.idleTimeoutMs),
      bodyTimeout: 0, // the deadline's idle clock counts events, not bytes
    });
    deadline?.progress();
    status = up.statusCode;
    up.body.on('error', () => undefined);
    await hook(req.onStatus?.(status));
    const headers = answerHeaders(up.headers, req.extraHeaders);
    seen =
      status >= 200 && status < 300
        ? await answerSuccess(res, req, up, headers, limits.responseLimitBytes, deadline, gone.signal)
        : await answerRefusal(res, req, up, headers);
  } catch (err) {
    if (err instanceof HookFailure) throw err.cause;
    seen = gone.signal.aborted ? { outcome: 'client_gone', rpcCode: null } : failed(res, req, toClientError(err, signal), status);
  } finally {
    deadline?.dispose();
  }
  return { upstreamStatus: status, ...seen, latencyMs: performance.now() - started };
}

/** An upstream failure as the JSON-RPC answer (or a cut stream, once the answer had begun). */
function failed(res: ServerResponse, req: RelayRequest, failure: McpClientError, status: number | null): Seen {
  if (res.headersSent) res.destroy();
  else
    sendRpcError(
      res,
      req.rpcId ?? null,
      failureReason(failure.kind),
      { detail: failure.message, ...(status !== null ? { upstream_status: status } : {}) },
      req.extraHeaders,
    );
  return failureOutcome(failure.kind);
}
