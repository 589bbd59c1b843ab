// A 2xx answer of the upstream relayed by its media type: a JSON body read whole (bounded) and sent
// byte for byte, or rewritten message by message when a transform is set (tools/list filtering,
// content inspection); an event stream passed through chunk by chunk, or parsed, framed and emitted
// again one event per message when a transform is set. forward.ts says when each applies.
import type { ServerResponse } from 'node:http';
import { MCP_RPC_ERRORS, type McpRpcReason } from '../../../shared/errors.js';
import { readBoundedJson, type Body } from '../client/bounded-read.js';
import type { UpstreamDeadline } from '../client/deadline.js';
import { McpClientError, toClientError } from '../client/errors.js';
import { formatSseEvent, SseParser, type SseEvent } from '../client/sse.js';
import { type Framed, StreamFraming } from '../client/framing.js';
import { DROP, type RelayRequest } from './relay-request.js';
import { rpcError } from './rpc.js';
import { failureOutcome, failureReason, sendRpcError, type Seen } from './upstream-failure.js';

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

export async function relayJson(
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

export async function relaySse(
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
