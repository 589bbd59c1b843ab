// POST, GET and DELETE on /api/v1/mcp/proxy/{server_id}. Before any policy decision, for every
// message: the server exists (404 not_found), X-Gateway-Environment is well formed (400), the body
// is one JSON-RPC 2.0 message (400, -32600), Mcp-Method / Mcp-Name agree with it (400, -32020), and
// a presented Mcp-Session-Id belongs to this credential (404, -32600). None of these is a decision,
// so none writes a trace. Then tools/call runs the full pipeline (tool-call.ts); every other
// method runs the gates only (agent, server, sign-in; no rule, no trace) and is forwarded, a
// tools/list answer filtered to what the caller may call (list-filter.ts).
import type { Reply, RouteRequest } from '../../http/types.js';
import { GatewayError } from '../../../shared/errors.js';
import type { ServerRow } from '../servers.js';
import type { UpstreamAuth } from '../auth.js';
import { relay, sendRpcError, failureReason } from './forward.js';
import { callThroughGatewaySession } from './gateway-session.js';
import { header, routingMismatch, upstreamHeaders } from './headers.js';
import { filterListMessage, filterToolsResult, type ListView } from './list-filter.js';
import { gateContext, loadAgent, loadAuth, loadListView, loadServer } from './load.js';
import { PASSTHROUGH_STAGES, runStages } from './pipeline.js';
import { idOf, parseMessage, rpcError, type RpcMessage } from './rpc.js';
import { bindSession, sessionBoundTo, unbindSession } from './sessions.js';
import type { CallAgent } from './stages/types.js';
import { handleToolCall, type ProxyDeps } from './tool-call.js';

const ENVIRONMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

function environmentOf(r: RouteRequest): string {
  const raw = header(r.req.headers, 'x-gateway-environment');
  if (raw === undefined || raw === '') return 'prod';
  if (!ENVIRONMENT.test(raw)) throw new GatewayError('validation_error', 'Invalid request: X-Gateway-Environment: letters, digits, ".", "_" and "-", at most 64');
  return raw;
}

const reply = (r: { status: number; body: unknown }): Reply => ({ status: r.status, body: r.body });

/** The caller speaks MCP itself: its session or protocol headers are relayed, and initialize always is. */
function ownSession(r: RouteRequest, msg: RpcMessage): boolean {
  return msg.kind !== 'request' || msg.method === 'initialize'
    || header(r.req.headers, 'mcp-session-id') !== undefined || header(r.req.headers, 'mcp-protocol-version') !== undefined;
}

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
  const agent = await loadAgent(deps.sql, projectId, header(r.req.headers, 'x-agent-id'));
  if (agent) deps.activity.record(projectId, agent.id);
  return { server, agent, auth: loadAuth(deps.secretBox, server), sessionId };
}

function limitsOf(deps: ProxyDeps) {
  return { dispatcher: deps.upstream, timeoutMs: deps.config.upstreamTimeoutMs, responseLimitBytes: deps.config.upstreamResponseLimitBytes };
}

export async function proxyPost(deps: ProxyDeps, r: RouteRequest): Promise<Reply> {
  const server = await loadServer(deps.sql, r.principal.projectId, r.params.server_id!);
  const environment = environmentOf(r);
  const msg = parseMessage(r.body);
  if ('invalid' in msg) return reply(rpcError(null, 'INVALID_REQUEST', { detail: msg.invalid }));
  // A tools/call without an id would otherwise pass as a notification, past every rule.
  if (msg.kind === 'notification' && msg.method === 'tools/call') return reply(rpcError(null, 'INVALID_REQUEST', { detail: 'tools/call must be a request with an id' }));
  const mismatch = routingMismatch(r.req.headers, msg);
  if (mismatch !== null) return reply(rpcError(idOf(msg), 'HEADER_MISMATCH', { detail: mismatch }));
  const caller = await identify(deps, r, server);
  if ('refused' in caller) return caller.refused;
  if (msg.kind === 'request' && msg.method === 'tools/call') {
    return handleToolCall(deps, { r, server: caller.server, msg, agent: caller.agent, auth: caller.auth, environment, ownSession: ownSession(r, msg), sessionId: caller.sessionId });
  }
  const gate = runStages(PASSTHROUGH_STAGES, gateContext(caller.server, caller.agent, caller.auth));
  if (gate.kind === 'refuse') return reply(rpcError(idOf(msg), gate.refusal.reason, { ...gate.refusal.data }, gate.refusal.message));
  const view: ListView | null = msg.kind === 'request' && msg.method === 'tools/list'
    ? { callerMayAct: true, tools: await loadListView(deps.sql, r.principal.projectId, caller.server.id, caller.agent?.id ?? null), capability: caller.agent?.capability ?? null }
    : null;
  const signIn = gate.state.signIn ?? {};
  if (msg.kind === 'request' && !ownSession(r, msg)) return throughGatewaySession(deps, caller, msg, view);
  return {
    stream: async (res) => {
      await relay(res, {
        url: new URL(caller.server.server_url), method: 'POST', headers: upstreamHeaders(r.req.headers, signIn, 'POST'),
        body: JSON.stringify(r.body), rpcId: msg.kind === 'request' ? msg.id : undefined, extraHeaders: {},
        ...(view && msg.kind === 'request' ? { transform: (m: unknown) => filterListMessage(m, msg.id, view) } : {}),
        onSession: async (sid) => { if (sid !== caller.sessionId) await bindSession(deps.sql, r.principal.projectId, caller.server.id, sid, r.principal.credentialId); },
        ...(caller.sessionId !== undefined ? { onSessionGone: () => unbindSession(deps.sql, caller.server.id, caller.sessionId!) } : {}),
      }, limitsOf(deps));
    },
  };
}

function throughGatewaySession(deps: ProxyDeps, caller: Caller, msg: RpcMessage & { kind: 'request' }, view: ListView | null): Reply {
  return {
    stream: async (res) => {
      const gone = new AbortController();
      res.once('close', () => { if (!res.writableFinished) gone.abort(); });
      const answer = await callThroughGatewaySession(caller.server, caller.auth!, limitsOf(deps), msg.method, msg.params ?? {}, gone.signal);
      if (answer.kind === 'failure') {
        if (answer.error.kind !== 'aborted') sendRpcError(res, msg.id, failureReason(answer.error.kind), { detail: answer.error.message }, {});
        return;
      }
      const result = answer.kind === 'result' && view ? filterToolsResult(answer.result, view) : answer.kind === 'result' ? answer.result : null;
      const text = JSON.stringify(result !== null ? { jsonrpc: '2.0', id: msg.id, result } : { jsonrpc: '2.0', id: msg.id, error: answer.kind === 'rpc_error' ? answer.error : null });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
    },
  };
}

/** GET (the server-to-client event stream) and DELETE (end a session): gates, binding, relay. */
export async function proxyOther(deps: ProxyDeps, r: RouteRequest, method: 'GET' | 'DELETE'): Promise<Reply> {
  const server = await loadServer(deps.sql, r.principal.projectId, r.params.server_id!);
  const caller = await identify(deps, r, server);
  if ('refused' in caller) return caller.refused;
  const gate = runStages(PASSTHROUGH_STAGES, gateContext(caller.server, caller.agent, caller.auth));
  if (gate.kind === 'refuse') return reply(rpcError(null, gate.refusal.reason, { ...gate.refusal.data }, gate.refusal.message));
  const sessionId = caller.sessionId;
  // A session the upstream ended (DELETE answered 2xx) or no longer knows (404) is unbound before the answer goes out.
  const ends = (status: number) => status === 404 || (method === 'DELETE' && status >= 200 && status < 300);
  return {
    stream: async (res) => {
      await relay(res, {
        url: new URL(caller.server.server_url), method, headers: upstreamHeaders(r.req.headers, gate.state.signIn ?? {}, method),
        rpcId: undefined, extraHeaders: {},
        ...(sessionId !== undefined ? { onStatus: async (status: number) => { if (ends(status)) await unbindSession(deps.sql, caller.server.id, sessionId); } } : {}),
      }, limitsOf(deps));
    },
  };
}
