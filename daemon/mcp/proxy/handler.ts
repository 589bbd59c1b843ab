// POST, GET and DELETE on /api/v1/mcp/proxy/{server_id}. Before any policy decision, for every
// message: the server exists (404 not_found), X-Gateway-Environment is well formed (400), the body
// is one JSON-RPC 2.0 message (400, -32600), Mcp-Method / Mcp-Name / Mcp-Param-* agree with it (400,
// -32020), and a presented Mcp-Session-Id belongs to this credential (404, -32600). None of these is
// a decision, so none writes a trace. Then tools/call runs the full pipeline (tool-call.ts); every
// other method runs the gates and the content of its params (agent, server, content, sign-in; no
// rule; an MCP_CONTENT trace when the content stage found something) and is forwarded, a tools/list
// answer filtered as the project's mcp_tools_list says (list-filter.ts), every request's answer
// stream watched by the results inspection (results.ts, its messages framed by client/framing.ts).
// A stdio server's messages go to its process through the gateway's own session (forward-stdio.ts);
// a 'per-session' one's sessions are opened and ended by the gateway (stdio-session.ts).
import type { Reply, RouteRequest } from '../../http/types.js';
import { sendStatusError } from '../../http/respond.js';
import type { ServerRow } from '../servers/server-rows.js';
import type { UpstreamAuth } from '../client/upstream-auth.js';
import type { Framed } from '../client/framing.js';
import { relay } from './forward.js';
import { DROP, upstreamLimits } from './relay-request.js';
import { answerThroughGatewaySession } from './gateway-session.js';
import { answerContent, answerPlace, forwardedBody, withheldAnswer } from './client-answer.js';
import { answerStdio, stdioMessage, stdioRoute } from './forward-stdio.js';
import { environmentOf, header, ownSession, routingMismatch, upstreamHeaders } from './headers.js';
import { filterListMessage, filterToolsResult, type ListView } from './list-filter.js';
import { gateContext, loadAgent, loadAuth, loadContentPolicies, loadServer, loadToolsListView } from './load.js';
import { PASSTHROUGH_STAGES, runStages } from './pipeline.js';
import { inspectAhead } from './stages/content.js';
import { idOf, parseMessage, rpcError } from './rpc.js';
import { contentDecided, recordRequestContent } from './request-content.js';
import { type ResultWatch, watchResults } from './results.js';
import { bindSession, sessionBoundTo, unbindSession } from './sessions.js';
import { endStdioSession, perSession, sessionRequired, stdioSessionOf } from './stdio-session.js';
import type { CallAgent } from './stages/types.js';
import { handleToolCall, type ProxyDeps } from './tool-call.js';
import { signInRefusal, upstreamSignIn } from './upstream-sign-in.js';

const reply = (r: { status: number; body: unknown }): Reply => ({ status: r.status, body: r.body });

interface Caller {
  readonly server: ServerRow;
  readonly agent: CallAgent | null;
  readonly auth: UpstreamAuth | null;
  readonly sessionId: string | undefined;
}

/** Server, session binding and agent: what every method on the proxy path needs first. */
async function identify(deps: ProxyDeps, r: RouteRequest, server: ServerRow): Promise<Caller | { refused: Reply }> {
  const projectId = r.principal.projectId;
  const sessionId = header(r.req.headers, 'mcp-session-id');
  if (sessionId !== undefined && !(await sessionBoundTo(deps.sql, projectId, server.id, sessionId, r.principal.credentialId))) {
    const id = r.req.method === 'POST' ? idOf(parseMessage(r.body)) : null;
    return { refused: reply(rpcError(id, 'SESSION_NOT_BOUND')) };
  }
  // An access token's agent claim (GATEWAY_OIDC_AGENT_CLAIM) names the agent in place of the header.
  const agent = await loadAgent(deps.sql, projectId, r.principal.tokenAgentId ?? header(r.req.headers, 'x-agent-id'));
  if (agent) deps.activity.record(projectId, agent.id);
  return { server, agent, auth: loadAuth(deps.secretBox, server), sessionId };
}

function limitsOf(deps: ProxyDeps) {
  return upstreamLimits(deps.config, deps.upstream);
}

export async function proxyPost(deps: ProxyDeps, r: RouteRequest): Promise<Reply> {
  const server = await loadServer(deps.sql, r.principal.projectId, r.params.server_id!);
  const environment = environmentOf(r.req.headers);
  const msg = parseMessage(r.body);
  if ('invalid' in msg) return reply(rpcError(null, 'INVALID_REQUEST', { detail: msg.invalid }));
  // A tools/call without an id would otherwise pass as a notification, past every rule.
  if (msg.kind === 'notification' && msg.method === 'tools/call')
    return reply(rpcError(null, 'INVALID_REQUEST', { detail: 'tools/call must be a request with an id' }));
  const mismatch = routingMismatch(r.req.headers, msg);
  if (mismatch !== null) return reply(rpcError(idOf(msg), 'HEADER_MISMATCH', { detail: mismatch }));
  const caller = await identify(deps, r, server);
  if ('refused' in caller) return caller.refused;
  const outside = sessionRequired(caller.server, msg, caller.sessionId);
  if (outside) return outside;
  if (msg.kind === 'request' && msg.method === 'tools/call') {
    return handleToolCall(deps, {
      r,
      server: caller.server,
      msg,
      agent: caller.agent,
      auth: caller.auth,
      environment,
      ownSession: ownSession(r.req.headers, msg),
      sessionId: caller.sessionId,
    });
  }
  const policies = await loadContentPolicies(deps.sql, r.principal.projectId);
  const budget = deps.config.detectorBudgetMs;
  // A request's params, or a client's answer to a server's request (client-answer.ts): both go to the upstream.
  const content =
    msg.kind === 'response'
      ? answerContent(r.body, policies, budget)
      : { method: msg.method, params: msg.params, policies, detectorBudgetMs: budget };
  const gated = gateContext(caller.server, caller.agent, caller.auth, content, r.principal.subject);
  const gate = runStages(PASSTHROUGH_STAGES, content ? await inspectAhead(gated, deps.config.inspectionBudgetMs) : gated);
  // What the content stage found is traced (request-content.ts) before anything goes on.
  const traceId =
    content !== undefined && contentDecided(gate)
      ? await recordRequestContent(
          deps,
          {
            projectId: r.principal.projectId,
            server: caller.server,
            method: content.method,
            agentId: caller.agent?.id ?? null,
            environment,
          },
          gate,
        )
      : null;
  if (gate.kind === 'refuse' && msg.kind === 'response') {
    // Signed in as the relay would be (token_exchange: the caller's token exchanged); best effort, as the answer itself.
    const auth = caller.auth;
    const signedIn =
      caller.server.transport === 'stdio' || auth === null
        ? null
        : await upstreamSignIn(deps.sql, r, caller.server.id, auth, {}).catch((err: unknown) => {
            deps.log.warn({ err, server_id: caller.server.id }, "could not sign in to answer a server request in the client's place");
            return null;
          });
    return withheldAnswer(
      msg.id,
      gate,
      traceId,
      caller.server.transport === 'stdio'
        ? answerStdio(stdioRoute(deps), caller.server, caller.sessionId, r.principal.credentialId)
        : answerPlace(limitsOf(deps), deps.log, r.req.headers, caller.server, signedIn?.ok ? signedIn.auth : null),
    );
  }
  if (gate.kind === 'refuse') {
    const data = { ...gate.refusal.detail.data, ...(traceId ? { trace_id: traceId } : {}) };
    return reply(rpcError(idOf(msg), gate.refusal.code, data, gate.refusal.detail.message));
  }
  // Masked by a REDACT argument policy: what the upstream gets instead of the caller's params (or answer).
  const params = gate.state.forwardParams ?? (msg.kind === 'response' ? undefined : msg.params);
  const body = forwardedBody(r.body, gate.state.forwardParams, msg.kind === 'response');
  const view: ListView | null =
    msg.kind === 'request' && msg.method === 'tools/list'
      ? await loadToolsListView(deps.sql, r.principal.projectId, caller.server.id, caller.agent)
      : null;
  const signedIn = await upstreamSignIn(deps.sql, r, caller.server.id, caller.auth!, gate.state.signIn ?? {});
  if (!signedIn.ok) return reply(signInRefusal(idOf(msg), signedIn));
  const headersOut = upstreamHeaders(r.req.headers, signedIn.headers, 'POST');
  const url = new URL(caller.server.server_url);
  const stdio = caller.server.transport === 'stdio';
  // Every request's answer stream is watched (results.ts): its result where the method brings content
  // to the model, its error always, and whatever else the upstream sends on the stream.
  const watch =
    msg.kind === 'request'
      ? watchResults(deps, policies, {
          projectId: r.principal.projectId,
          server: caller.server,
          toolName: null,
          awaited: { id: msg.id, method: msg.method },
          callTraceId: null,
          agentId: caller.agent?.id ?? null,
          environment,
          upstream: ownSession(r.req.headers, msg) && !stdio ? { url, headers: headersOut } : null,
        })
      : null;
  if (stdio) {
    const session = await stdioSessionOf(deps, r, caller.server, msg, caller.sessionId);
    return stdioMessage(stdioRoute(deps), msg, {
      server: caller.server,
      sessionId: session.sessionId,
      params: params ?? {},
      extraHeaders: session.headers,
      ...(view ? { transform: (result: Record<string, unknown>) => filterToolsResult(result, view) } : {}),
      ...(watch ? { inspect: watch.transform } : {}),
      done: async () => void (await watch?.record()),
      ...(msg.kind === 'response' ? { clientAnswer: body, answerer: r.principal.credentialId } : {}),
    });
  }
  if (msg.kind === 'request' && !ownSession(r.req.headers, msg)) {
    return {
      stream: async (res) => {
        await answerThroughGatewaySession(
          res,
          {
            server: caller.server,
            auth: signedIn.auth,
            method: msg.method,
            params: params ?? {},
            rpcId: msg.id,
            extraHeaders: {},
            ...(view ? { transform: (result: Record<string, unknown>) => filterToolsResult(result, view) } : {}),
            ...(watch ? { inspect: watch.transform } : {}),
          },
          limitsOf(deps),
        );
        await watch?.record();
      },
    };
  }
  return {
    stream: async (res) => {
      await relay(
        res,
        {
          url,
          method: 'POST',
          headers: headersOut,
          body: JSON.stringify(body),
          rpcId: msg.kind === 'request' ? msg.id : undefined,
          extraHeaders: {},
          ...(transformOf(view, watch) ?? {}),
          onSession: async (sid) => {
            if (sid !== caller.sessionId)
              await bindSession(deps.sql, r.principal.projectId, caller.server.id, sid, r.principal.credentialId);
          },
          ...(caller.sessionId !== undefined ? { onSessionGone: () => unbindSession(deps.sql, caller.server.id, caller.sessionId!) } : {}),
        },
        limitsOf(deps),
      );
      await watch?.record();
    },
  };
}

/** The rewriting of a relayed answer: the watch's inspection, then the tools/list filter of what it passed. */
function transformOf(
  view: ListView | null,
  watch: ResultWatch | null,
): { transform: (framed: Framed) => unknown | Promise<unknown> } | null {
  if (view === null) return watch ? { transform: watch.transform } : null;
  if (watch === null) return { transform: (framed) => filterListMessage(framed, view) };
  return {
    transform: async (framed) => {
      const out = await watch.transform(framed);
      if (out === DROP || framed.role !== 'answer') return out;
      return filterListMessage({ role: 'answer', message: out as Record<string, unknown> }, view);
    },
  };
}

/** GET (the server-to-client event stream) and DELETE (end a session): gates, binding, relay. */
export async function proxyOther(deps: ProxyDeps, r: RouteRequest, method: 'GET' | 'DELETE'): Promise<Reply> {
  const server = await loadServer(deps.sql, r.principal.projectId, r.params.server_id!);
  const environment = environmentOf(r.req.headers);
  const caller = await identify(deps, r, server);
  if ('refused' in caller) return caller.refused;
  const gate = runStages(PASSTHROUGH_STAGES, gateContext(caller.server, caller.agent, caller.auth, undefined, r.principal.subject));
  if (gate.kind === 'refuse') return reply(rpcError(null, gate.refusal.code, { ...gate.refusal.detail.data }, gate.refusal.detail.message));
  const signedIn = await upstreamSignIn(deps.sql, r, caller.server.id, caller.auth!, gate.state.signIn ?? {});
  if (!signedIn.ok) return reply(signInRefusal(null, signedIn));
  // The gateway holds a stdio server's session itself: no event stream; a session to end only for a per-session server.
  if (method === 'DELETE' && perSession(caller.server) && caller.sessionId !== undefined)
    return endStdioSession(deps, caller.server, caller.sessionId);
  if (caller.server.transport === 'stdio')
    return {
      stream: async (res) =>
        sendStatusError(res, 405, `A stdio MCP server takes POST only through the proxy, not ${method}.`, { Allow: 'POST' }),
    };
  const sessionId = caller.sessionId;
  const headersOut = upstreamHeaders(r.req.headers, signedIn.headers, method);
  const url = new URL(caller.server.server_url);
  // The server's own requests on the GET stream (sampling, elicitation) are inspected like those on a call's stream.
  const watch =
    method === 'GET'
      ? watchResults(deps, await loadContentPolicies(deps.sql, r.principal.projectId), {
          projectId: r.principal.projectId,
          server: caller.server,
          toolName: null,
          awaited: null,
          callTraceId: null,
          agentId: caller.agent?.id ?? null,
          environment,
          upstream: { url, headers: upstreamHeaders(r.req.headers, signedIn.headers, 'POST') },
        })
      : null;
  // A session the upstream ended (DELETE answered 2xx) or no longer knows (404) is unbound before the answer goes out.
  const ends = (status: number) => status === 404 || (method === 'DELETE' && status >= 200 && status < 300);
  return {
    stream: async (res) => {
      await relay(
        res,
        {
          url,
          method,
          headers: headersOut,
          rpcId: undefined,
          extraHeaders: {},
          ...(watch ? { transform: watch.transform } : {}),
          ...(sessionId !== undefined
            ? {
                onStatus: async (status: number) => {
                  if (ends(status)) await unbindSession(deps.sql, caller.server.id, sessionId);
                },
              }
            : {}),
        },
        limitsOf(deps),
      );
      await watch?.record();
    },
  };
}
