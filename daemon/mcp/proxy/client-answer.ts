// A client's answer to a server's own request (sampling's model output, an elicitation's form
// values, roots) is data leaving the client for the upstream: its result is inspected under the
// argument policies like a request's params. A blocked answer never reaches the server: the gateway
// answers the server in the client's place with the refusal (so it does not wait for ever), and the
// client's POST is refused with 403 and a JSON-RPC error without an id (Streamable HTTP: a response
// that is not accepted gets an HTTP error status; an id would collide with the client's own requests).
import type { IncomingHttpHeaders } from 'node:http';
import type { Reply } from '../../http/types.js';
import type { Logger } from '../../log.js';
import type { LoadedContentPolicy } from '../content/effective.js';
import { authHeaders, type UpstreamAuth } from '../client/upstream-auth.js';
import type { ServerRow } from '../servers/registry.js';
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

/** Where the server's copy of the refusal goes: its session on the upstream, signed in as the relay would be. */
export interface AnswerUpstream {
  readonly limits: UpstreamLimits;
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly log: Logger;
  readonly serverId: string;
}

/** Where the gateway answers the server in the client's place: the client's session on an HTTP upstream. */
export function answerPlace(
  limits: UpstreamLimits,
  log: Logger,
  requestHeaders: IncomingHttpHeaders,
  server: ServerRow,
  auth: UpstreamAuth | null,
): AnswerUpstream | null {
  if (server.transport === 'stdio' || auth === null) return null;
  let signIn: Record<string, string>;
  try {
    signIn = authHeaders(auth);
  } catch {
    return null; // the server cannot be signed in to (the relay would refuse too): nothing reaches it
  }
  return { limits, url: new URL(server.server_url), headers: upstreamHeaders(requestHeaders, signIn, 'POST'), log, serverId: server.id };
}

/**
 * The refusal of a blocked answer: the server gets the error in the client's place (sent beside the
 * reply: the client does not wait on the upstream; a failure is only logged), the client a 403.
 */
export function withheldAnswer(id: RpcId, gate: Refused, traceId: string | null, upstream: AnswerUpstream | null): Reply {
  const refusal = rpcError(id, gate.refusal.code, { ...gate.refusal.detail.data, ...(traceId ? { trace_id: traceId } : {}) });
  const message = "The client's answer was withheld by the gateway: a content policy blocks what it carries.";
  if (upstream !== null) {
    answerUpstream(upstream.limits, upstream.url, upstream.headers, { ...refusal.body, error: { ...refusal.body.error, message } }).catch(
      (err: unknown) =>
        upstream.log.warn({ err, server_id: upstream.serverId }, "could not answer a server request upstream in the client's place"),
    );
  }
  return {
    status: 403,
    body: { ...refusal.body, id: null, error: { ...refusal.body.error, message: gate.refusal.detail.message ?? message } },
  };
}
