// Forwarding to a stdio server (transport 'stdio'): the gateway holds the MCP session itself, with
// the server's shared process or, for a 'per-session' server, the process of the caller's session
// (Mcp-Session-Id, stdio-session.ts; mcp/stdio/stdio-upstream.ts), so a caller's message never reaches the
// process as it came. `initialize` is answered by the gateway from the process's own handshake;
// the caller's notifications are taken (202) and go no further (the gateway made the handshake), its
// responses go to the process only as answers to the server requests relayed to it during a
// tools/call (stdio-relay.ts; the server's other requests are refused); every other request goes through
// the Upstream interface (client/upstream.ts) with GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS as its
// deadline, and its answer is written as gateway-session.ts writes one: the result under the
// caller's id, rewritten by `transform` (tools/list filter) and `inspect` (results inspection).
// The upstream's own failures map as HTTP failures do (upstream-failure.ts): the process not there,
// exited mid-call or not answering in time -> -32007; stdout that broke the protocol, or a result
// that is not an object -> -32006; the error names why.
import type { ServerResponse } from 'node:http';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Reply } from '../../http/types.js';
import type { McpFailureKind } from '../client/errors.js';
import type { RpcAnswer, RpcError } from '../client/upstream.js';
import type { ServerRow } from '../servers/server-rows.js';
import { stdioDefinition } from '../servers/stdio-record.js';
import { StdioRefusal, type StdioServers } from '../stdio/stdio-servers.js';
import { type StdioFailure, stdioFailureOf, type StdioUpstream } from '../stdio/stdio-upstream.js';
import type { AnswerServer } from './client-answer.js';
import type { GatewayCall } from './gateway-session.js';
import type { RelayResult } from './relay-request.js';
import { RelayedAnswer } from './stdio-relay.js';
import { failureOutcome, failureReason, sendRpcError } from './upstream-failure.js';
import { rpcError, type RpcMessage } from './rpc.js';

export interface StdioRoute {
  /** The daemon's stdio servers; absent where this daemon runs none. */
  readonly stdio: StdioServers | undefined;
  readonly box: SecretBox;
  /** GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS, in ms: the whole call, process start and handshake included. */
  readonly deadlineMs: number;
}

export type StdioCall = Omit<GatewayCall, 'auth'> & {
  /** The caller's session, whose process a 'per-session' server's call goes to. */
  readonly sessionId?: string | undefined;
  /** Set on a tools/call whose caller takes an event stream: the server's requests meanwhile are relayed to it, answerable by this credential. */
  readonly answerer?: string;
};

/** Where the proxy's stdio servers are and the deadline of a call to one. */
export function stdioRoute(deps: { stdio?: StdioServers; secretBox: SecretBox; config: { upstreamCallTimeoutMs: number } }): StdioRoute {
  return { stdio: deps.stdio, box: deps.secretBox, deadlineMs: deps.config.upstreamCallTimeoutMs };
}

const FAILURE_KIND: Record<StdioFailure, McpFailureKind> = { unavailable: 'unreachable', timeout: 'timeout', protocol: 'invalid_response' };

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The server's process (the session's own for a 'per-session' one), or why there is none (not allowed here, no sandbox, no stdio on this daemon). */
export async function upstreamOf(route: StdioRoute, server: ServerRow, sessionId: string | undefined): Promise<StdioUpstream | string> {
  if (!route.stdio) return 'this daemon runs no stdio servers';
  const perSession = server.process_mode === 'per-session';
  if (perSession && sessionId === undefined) return 'a per-session stdio server is called within an MCP session';
  try {
    return await route.stdio.upstream(stdioDefinition(route.box, server), perSession ? sessionId : null);
  } catch (err) {
    if (err instanceof StdioRefusal) return err.message;
    throw err;
  }
}

function failed(
  res: ServerResponse,
  call: StdioCall,
  kind: McpFailureKind,
  detail: string,
  started: number,
  stream?: RelayedAnswer,
): RelayResult {
  const data = { detail, ...call.failureData };
  if (stream?.streaming) stream.end(rpcError(call.rpcId, failureReason(kind), data).body);
  else sendRpcError(res, call.rpcId, failureReason(kind), data, call.extraHeaders);
  return { upstreamStatus: null, ...failureOutcome(kind), latencyMs: performance.now() - started };
}

/** The upstream's answer as the one the caller gets: a result object, the server's error, or a failure. */
async function ask(upstream: StdioUpstream, call: StdioCall, deadlineMs: number, stream: RelayedAnswer | null): Promise<RpcAnswer> {
  if (call.method === 'initialize') {
    try {
      return { result: await upstream.initialized(deadlineMs) };
    } catch (err) {
      return { error: { code: -32003, message: `initialize: ${(err as Error).message}` } };
    }
  }
  return upstream.request(
    call.method,
    call.params,
    deadlineMs,
    stream && call.answerer ? stream.relay(call.answerer, upstream) : undefined,
  );
}

/** Makes one request of the stdio server and writes the answer; never throws for upstream faults. */
export async function answerThroughStdio(res: ServerResponse, call: StdioCall, route: StdioRoute): Promise<RelayResult> {
  const started = performance.now();
  const upstream = await upstreamOf(route, call.server, call.sessionId);
  if (typeof upstream === 'string') return failed(res, call, 'unreachable', upstream, started);
  const stream = call.answerer !== undefined ? new RelayedAnswer(res, call.extraHeaders, call.inspect) : null;
  const answer = await ask(upstream, call, route.deadlineMs, stream);
  await stream?.settled();
  const latencyMs = performance.now() - started;
  const own = stdioFailureOf(answer);
  if (own !== null && 'error' in answer) return failed(res, call, FAILURE_KIND[own], answer.error.message, started, stream ?? undefined);
  if (call.method === 'initialize' && 'error' in answer) return failed(res, call, 'unreachable', answer.error.message, started);
  if ('result' in answer && !isObject(answer.result))
    return failed(res, call, 'invalid_response', `the stdio server's ${call.method} result is not an object`, started, stream ?? undefined);
  const body =
    'result' in answer
      ? {
          jsonrpc: '2.0',
          id: call.rpcId,
          result: call.transform ? call.transform(answer.result as Record<string, unknown>) : answer.result,
        }
      : { jsonrpc: '2.0', id: call.rpcId, error: answer.error };
  // Awaited: the results inspection may run in a worker (main's i25-pool makes it asynchronous).
  const inspected = call.inspect ? await call.inspect({ role: 'answer', message: body }) : body;
  if (res.destroyed) return { upstreamStatus: null, outcome: 'client_gone', rpcCode: null, latencyMs };
  if (stream?.streaming) stream.end(inspected);
  else {
    const text = JSON.stringify(inspected);
    res.writeHead(200, { ...call.extraHeaders, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }
  return {
    upstreamStatus: null,
    outcome: 'result' in answer ? 'ok' : 'rpc_error',
    rpcCode: 'error' in answer ? answer.error.code : null,
    latencyMs,
  };
}

/** A client's answer to a server request relayed to it, to the process that asked; false when it was not relayed to `answerer` (dropped). */
async function deliver(
  route: StdioRoute,
  server: ServerRow,
  sessionId: string | undefined,
  id: unknown,
  answer: RpcAnswer,
  answerer: string,
) {
  if (typeof id !== 'string' && typeof id !== 'number') return false;
  const upstream = await upstreamOf(route, server, sessionId).catch(() => 'gone');
  return typeof upstream !== 'string' && upstream.answerRelayed(id, answer, answerer);
}

/** Where a stdio server is answered in the client's place (a withheld answer, client-answer.ts): the process that asked. */
export function answerStdio(route: StdioRoute, server: ServerRow, sessionId: string | undefined, answerer: string): AnswerServer {
  return (message) => void deliver(route, server, sessionId, message.id, { error: message.error as unknown as RpcError }, answerer);
}

const answerIn = (body: Record<string, unknown>): RpcAnswer =>
  'error' in body ? { error: body.error as RpcError } : { result: body.result };

/**
 * A message other than tools/call to a stdio server: notifications end here (202), a response goes
 * to the process when it answers a server request relayed to this caller (then 202), requests are
 * answered through the process. `done` runs once the answer is written (the results trace).
 */
export function stdioMessage(
  route: StdioRoute,
  msg: RpcMessage,
  call: Omit<StdioCall, 'method' | 'rpcId'> & { done: () => Promise<void>; clientAnswer?: unknown },
): Reply {
  if (msg.kind !== 'request')
    return {
      stream: async (res) => {
        if (msg.kind === 'response' && isObject(call.clientAnswer) && call.answerer !== undefined)
          await deliver(route, call.server, call.sessionId, msg.id, answerIn(call.clientAnswer), call.answerer);
        res.writeHead(202, call.extraHeaders);
        res.end();
      },
    };
  const { done, clientAnswer: _answer, ...rest } = call;
  return {
    stream: async (res) => {
      await answerThroughStdio(res, { ...rest, method: msg.method, rpcId: msg.id }, route);
      await done();
    },
  };
}
