// A client's answer to a server's own request (sampling's model output, an elicitation's form
// values, roots) is data leaving the client for the upstream: its result is inspected under the
// argument policies like a request's params. A blocked answer never reaches the server: the gateway
// answers the server in the client's place with the refusal (so it does not wait for ever: over its
// session upstream, or to a stdio server's process, forward-stdio.ts), and the
// client's POST is refused with 403 and a JSON-RPC error without an id (Streamable HTTP: a response
// that is not accepted gets an HTTP error status; an id would collide with the client's own requests).
import type { IncomingHttpHeaders } from 'node:http';
import type { Reply } from '../../http/types.js';
import type { Logger } from '../../log.js';
import type { LoadedContentPolicy } from '../content/effective.js';
import { authHeaders, type UpstreamAuth } from '../client/upstream-auth.js';
import type { ServerRow } from '../servers/server-rows.js';
import { answerUpstream } from './answer-upstream.js';
import { upstreamHeaders } from './headers.js';
import type { RequestContent } from './load.js';
import type { UpstreamLimits } from './relay-request.js';
import { rpcError, type RpcId } from './rpc.js';
import { CLIENT_ANSWER } from './stages/content.js';
import type { Decision } from './stages/types.js';

type Refused = Extract<Decision, { kind: 'refuse' }>;

/** What the content stage reads of a client's answer: its result object; nothing for an error answer. */
export function answerContent(
  body: unknown,
  policies: readonly LoadedContentPolicy[],
  detectorBudgetMs: number,
): RequestContent | undefined {
  const result = (body as { result?: unknown }).result;
  if (result === null || typeof result !== 'object' || Array.isArray(result)) return undefined;
  return { method: CLIENT_ANSWER, params: result as Record<string, unknown>, policies, detectorBudgetMs };
}

/** The message as forwarded: a masked answer's result, or a request's params, in place of the caller's. */
export function forwardedBody(body: unknown, masked: Record<string, unknown> | undefined, isAnswer: boolean): unknown {
  if (masked === undefined) return body;
  return { ...(body as Record<string, unknown>), [isAnswer ? 'result' : 'params']: masked };
}

/** Sends the server its copy of the refusal in the client's place; never throws (a failure is only logged). */
export type AnswerServer = (message: { jsonrpc: '2.0'; id: RpcId; error: Record<string, unknown> }) => void;

/**
 * Where the gateway answers an HTTP server in the client's place: the client's session upstream,
 * signed in as the relay would be (`auth`: a token_exchange server's is the caller's token already
 * exchanged, upstream-sign-in.ts); null when it cannot be signed in to, and then nothing reaches it.
 */
export function answerPlace(
  limits: UpstreamLimits,
  log: Logger,
  requestHeaders: IncomingHttpHeaders,
  server: ServerRow,
  auth: UpstreamAuth | null,
): AnswerServer | null {
  if (server.transport === 'stdio' || auth === null) return null;
  let signIn: Record<string, string>;
  try {
    signIn = authHeaders(auth);
  } catch {
    return null; // the server cannot be signed in to (the relay would refuse too): nothing reaches it
  }
  const url = new URL(server.server_url);
  const headers = upstreamHeaders(requestHeaders, signIn, 'POST');
  return (message) =>
    void answerUpstream(limits, url, headers, message).catch((err: unknown) =>
      log.warn({ err, server_id: server.id }, "could not answer a server request upstream in the client's place"),
    );
}

/**
 * The refusal of a blocked answer: the server gets the error in the client's place (sent beside the
 * reply: the client does not wait on the upstream; a failure is only logged), the client a 403.
 */
export function withheldAnswer(id: RpcId, gate: Refused, traceId: string | null, answerServer: AnswerServer | null): Reply {
  const refusal = rpcError(id, gate.refusal.code, { ...gate.refusal.detail.data, ...(traceId ? { trace_id: traceId } : {}) });
  const message = "The client's answer was withheld by the gateway: a content policy blocks what it carries.";
  answerServer?.({ ...refusal.body, error: { ...refusal.body.error, message } });
  return {
    status: 403,
    body: { ...refusal.body, id: null, error: { ...refusal.body.error, message: gate.refusal.detail.message ?? message } },
  };
}
