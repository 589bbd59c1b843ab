// Step `forward`, the last: the decided call goes upstream through the caller's own session
// (forward.ts relay) or a one-off gateway session (gateway-session.ts), or, to a stdio server, to
// its process through the gateway's own session with it (forward-stdio.ts), with the arguments and
// other params a REDACT content policy masked, the server's sign-in and the Mcp-Param-* headers of
// what is forwarded (a token_exchange server's: the caller's token exchanged first,
// upstream-sign-in.ts; a failed exchange answers -32008 and is the recorded outcome, nothing sent).
// Its answer passes through two more named passes, as a proxy library's outgoing passes:
// `inspectResult` (results.ts: the results policies over each message coming back, when any is in
// force) and, once the answer is sent, `recordOutcome` (outcomes.ts: status, outcome and
// latency under the decision trace's id; and the MCP_CONTENT trace of what the inspection found).
import type { ServerResponse } from 'node:http';
import type { Reply } from '../../../http/types.js';
import { answerThroughGatewaySession } from '../gateway-session.js';
import { relay } from '../forward.js';
import { answerThroughStdio, type StdioCall, stdioRoute } from '../forward-stdio.js';
import { upstreamHeaders } from '../headers.js';
import { forwardedParamHeaders } from '../param-headers.js';
import { upstreamLimits, type RelayResult } from '../relay-request.js';
import { type ResultWatch, watchResults } from '../results.js';
import { unbindSession } from '../sessions.js';
import { signInRefusal, type SignedIn, upstreamSignIn } from '../upstream-sign-in.js';
import { recordedHeaders } from './refuse.js';
import type { Journey, Step } from './journey.js';

/** The answer's pass over each message coming back: the results inspection, when a results policy is in force. */
function inspectResult(j: Journey, upstream: { url: URL; headers: Record<string, string> } | null): ResultWatch | null {
  const { call } = j;
  const ctx = j.ctx!;
  return watchResults(j.deps, ctx.contentPolicies, {
    projectId: call.r.principal.projectId,
    server: ctx.server,
    toolName: ctx.toolName,
    awaited: { id: call.msg.id, method: 'tools/call' },
    callTraceId: j.recorded!.written.id,
    agentId: ctx.agent?.id ?? null,
    environment: call.environment,
    upstream,
  });
}

/** The answer's last pass: what happened upstream, under the decision trace; what the inspection found, traced. */
async function recordOutcome(j: Journey, result: RelayResult, watch: ResultWatch | null): Promise<void> {
  j.deps.outcomes.record({
    trace_id: j.recorded!.written.id,
    project_id: j.call.r.principal.projectId,
    server_id: j.call.server.id,
    tool_name: j.ctx!.toolName,
    upstream_status: result.upstreamStatus,
    outcome: result.outcome,
    rpc_code: result.rpcCode,
    latency_ms: result.latencyMs,
  });
  await watch?.record();
}

/** A failed exchange: refused like an upstream failure, recorded under the decision trace; nothing was sent. */
async function refuseSignIn(
  j: Journey,
  res: ServerResponse,
  failed: Extract<SignedIn, { ok: false }>,
  headers: Readonly<Record<string, string>>,
): Promise<void> {
  const refusal = signInRefusal(j.call.msg.id, failed, { trace_id: j.recorded!.written.id });
  const text = JSON.stringify(refusal.body);
  res.writeHead(refusal.status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
  await recordOutcome(j, { upstreamStatus: null, outcome: failed.kind, rpcCode: refusal.body.error.code, latencyMs: 0 }, null);
}

const takesEvents = (accept: string | undefined): boolean => accept?.includes('text/event-stream') ?? false;

/** The params as forwarded: masked by a REDACT content policy where it masked them. */
function forwardedParams(j: Journey): Record<string, unknown> {
  const input = j.input!;
  const { state } = j.recorded!.d;
  const rest = { name: input.name, ...(state.forwardParams ?? input.otherParams) };
  const args = state.forwardArguments ?? input.forwarded;
  return args === undefined ? rest : { ...rest, arguments: args };
}

export const forwardStep: Step = {
  name: 'forward',
  run(j): Reply {
    const { deps, call } = j;
    const { r, msg, server } = call;
    const ctx = j.ctx!;
    const recorded = j.recorded!;
    const headers = recordedHeaders(j);
    const params = forwardedParams(j);
    const limits = upstreamLimits(deps.config, deps.upstream);
    const url = new URL(server.server_url);
    const stdio = server.transport === 'stdio';
    return {
      stream: async (res) => {
        // A token_exchange server's sign-in is the caller's token exchanged now, after the decision was recorded.
        const signedIn = await upstreamSignIn(deps.sql, r, server.id, call.auth!, recorded.d.state.signIn ?? {});
        if (!signedIn.ok) return refuseSignIn(j, res, signedIn, headers);
        const headersOut = forwardedParamHeaders(
          upstreamHeaders(r.req.headers, signedIn.headers, 'POST'),
          ctx.tool?.inputSchema,
          params.arguments as Record<string, unknown> | undefined,
        );
        const watch = inspectResult(j, call.ownSession && !stdio ? { url, headers: headersOut } : null);
        // A session the gateway holds (a stdio process, or its own HTTP session): the same call either way.
        const held: StdioCall = {
          server,
          sessionId: call.sessionId,
          method: 'tools/call',
          params,
          rpcId: msg.id,
          extraHeaders: headers,
          failureData: { trace_id: recorded.written.id },
          ...(watch ? { inspect: watch.transform } : {}),
          // A caller that takes an event stream is asked the stdio server's requests made meanwhile (stdio-relay.ts).
          ...(stdio && takesEvents(r.req.headers.accept) ? { answerer: r.principal.credentialId } : {}),
        };
        const result = stdio
          ? await answerThroughStdio(res, held, stdioRoute(deps))
          : call.ownSession
            ? await relay(
                res,
                {
                  url,
                  method: 'POST',
                  headers: headersOut,
                  body: JSON.stringify({ ...(r.body as Record<string, unknown>), params }),
                  rpcId: msg.id,
                  rpcMethod: 'tools/call',
                  extraHeaders: headers,
                  ...(watch ? { transform: watch.transform } : {}),
                  ...(call.sessionId !== undefined ? { onSessionGone: () => unbindSession(deps.sql, server.id, call.sessionId!) } : {}),
                },
                limits,
              )
            : await answerThroughGatewaySession(res, { ...held, auth: signedIn.auth }, limits);
        await recordOutcome(j, result, watch);
      },
    };
  },
};
