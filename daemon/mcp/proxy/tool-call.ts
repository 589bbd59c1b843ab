// One tools/call through the proxy: load the context, run the pipeline, make the decision durable,
// then forward (or answer the refusal). In order:
//   1. arguments: `_gateway_approval_id` (or header X-Gateway-Approval-Id) taken out, the rest hashed;
//   2. load.ts (through the state cache), then pipeline.ts (pure) decides; only a call about to be
//      held for a new approval reads its agent's open approvals, and is decided again with them;
//   3. settle: the decision trace is written before anything leaves, by the group-commit writer
//      (database, or the dead-letter queue when the database is down). A held call creates its
//      approval and trace in one transaction; a call under an approval spends it and writes its
//      trace in one transaction (held.ts). A repeat that finds its approval already spent by a
//      concurrent one is decided again with that knowledge (held anew). If no store takes the
//      trace, the call is refused with 503 and no body (as verify), and nothing is forwarded;
//   4. forward through the caller's own session (relay) or a one-off gateway session, stream the
//      answer back, and record the upstream outcome after (outcomes.ts).
import { randomUUID } from 'node:crypto';
import type { Deps } from '../../api/deps.js';
import { findApproval, type McpBinding } from '../../approvals/store.js';
import { governanceHeaders } from '../../http/governance-headers.js';
import type { Reply, RouteRequest } from '../../http/types.js';
import type { PersistOutcome } from '../../ledger/dlq-outcome.js';
import type { ServerRow } from '../servers.js';
import { argumentsHash, splitArguments } from './canonical.js';
import { callThroughGatewaySession } from './gateway-session.js';
import { relay, sendRpcError, failureReason } from './forward.js';
import { header, upstreamHeaders } from './headers.js';
import { forwardUnderApproval, holdCall } from './held.js';
import { loadCallContext, pendingCountFor } from './load.js';
import type { OutcomeRecorder } from './outcomes.js';
import { runStages, TOOL_CALL_STAGES, type Decision } from './pipeline.js';
import { callTrace, type CallFacts } from './record.js';
import { rpcError, type RpcMessage } from './rpc.js';
import { unbindSession } from './sessions.js';
import { refuse, type CallAgent, type CallContext } from './stages/types.js';
import type { UpstreamAuth } from '../auth.js';

export interface ProxyDeps extends Deps {
  readonly outcomes: OutcomeRecorder;
}

export interface CallRequest {
  readonly r: RouteRequest;
  readonly server: ServerRow;
  readonly msg: RpcMessage & { kind: 'request' };
  readonly agent: CallAgent | null;
  readonly auth: UpstreamAuth | null;
  readonly environment: string;
  /** The caller speaks MCP itself (its own session or protocol headers): relay; else a gateway session. */
  readonly ownSession: boolean;
  /** The caller's Mcp-Session-Id, already checked to be bound to its credential. */
  readonly sessionId: string | undefined;
}

interface Settled {
  readonly d: Decision;
  readonly ctx: CallContext;
  readonly written: PersistOutcome & { readonly id: string };
  readonly approvalId: string | null;
}

const APPROVAL_ID = /^[\x21-\x7e]{1,100}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalidParams(msg: CallRequest['msg'], detail: string): Reply {
  const reply = rpcError(msg.id, 'INVALID_PARAMS', { detail });
  return { status: reply.status, body: reply.body };
}

/** The pipeline's decision; a call about to be held for a new approval is decided again with its agent's open approvals counted. */
async function decide(deps: ProxyDeps, projectId: string, ctx0: CallContext): Promise<{ d: Decision; ctx: CallContext }> {
  const d = runStages(TOOL_CALL_STAGES, ctx0);
  if (!(d.kind === 'refuse' && d.refusal.hold && d.refusal.hold.approvalId === null && ctx0.agent !== null)) return { d, ctx: ctx0 };
  const ctx = await pendingCountFor(deps.sql, projectId, ctx0);
  return { d: runStages(TOOL_CALL_STAGES, ctx), ctx };
}

async function settle(deps: ProxyDeps, projectId: string, ctx0: CallContext, facts: CallFacts): Promise<Settled> {
  let { d, ctx } = await decide(deps, projectId, ctx0);
  const binding: McpBinding = { serverId: ctx.server.id, toolName: ctx.toolName, agentId: ctx.agent?.id ?? null, argumentsHash: ctx.argumentsHash };
  const inDb = (id: string) => ({ id, persisted: 'db' as const, degradedSubsystems: deps.writer.degradedSubsystems() });
  if (d.kind === 'forward' && d.state.useApproval) {
    const spent = await forwardUnderApproval(deps.sql, projectId, d.state.useApproval, binding, callTrace(ctx, d, facts));
    if (spent) return { d, ctx, written: inDb(spent.id), approvalId: d.state.useApproval };
    // Spent meanwhile (a concurrent repeat), ended or expired: decide again knowing its state now.
    const now = await findApproval(deps.sql, projectId, d.state.useApproval);
    ({ d, ctx } = await decide(deps, projectId, { ...ctx, now: new Date(), approval: now && now.status === 'APPROVED' ? { ...now, status: 'USED' } : now }));
  }
  if (d.kind === 'refuse' && d.refusal.hold && d.refusal.hold.approvalId === null) {
    const held = d;
    const result = await holdCall(deps.sql, projectId, binding, {
      traceId: facts.traceId, ttlSeconds: deps.config.approvalTtlSeconds, maxPending: deps.config.maxPendingApprovalsPerAgent,
      trace: (approvalId) => callTrace(ctx, held, facts, approvalId),
    });
    if (!result.limited) return { d, ctx, written: inDb(result.appended.id), approvalId: result.approvalId };
    d = { kind: 'refuse', stage: 'approval', state: d.state, refusal: refuse('PENDING_APPROVALS_LIMIT', { agent_id: ctx.agent?.id, limit: deps.config.maxPendingApprovalsPerAgent }) };
  }
  const reused = d.kind === 'refuse' ? d.refusal.hold?.approvalId ?? null : null;
  const written = await deps.writer.appendOrQueue(projectId, callTrace(ctx, d, facts, reused));
  return { d, ctx, written, approvalId: reused };
}

export async function handleToolCall(deps: ProxyDeps, call: CallRequest): Promise<Reply> {
  const { r, msg, server } = call;
  const params = msg.params ?? {};
  if (typeof params.name !== 'string' || params.name === '' || params.name.length > 500 || params.name.includes('\u0000')) return invalidParams(msg, 'params.name must be the tool name');
  if (params.arguments !== undefined && !isObject(params.arguments)) return invalidParams(msg, 'params.arguments must be an object');
  const split = splitArguments(params.arguments as Record<string, unknown> | undefined);
  if ('invalid' in split) return invalidParams(msg, split.invalid);
  const fromHeader = header(r.req.headers, 'x-gateway-approval-id');
  if (fromHeader !== undefined && !APPROVAL_ID.test(fromHeader)) return invalidParams(msg, 'X-Gateway-Approval-Id must be an approval id');
  if (fromHeader !== undefined && split.approvalId !== undefined && fromHeader !== split.approvalId) {
    return invalidParams(msg, 'X-Gateway-Approval-Id and arguments._gateway_approval_id name different approvals');
  }
  const projectId = r.principal.projectId;
  const ctx = await loadCallContext(deps.sql, projectId, {
    server, agent: call.agent, auth: call.auth, toolName: params.name, argumentsHash: argumentsHash(split.forwarded),
    approvalId: fromHeader ?? split.approvalId ?? null, maxPendingPerAgent: deps.config.maxPendingApprovalsPerAgent,
  });
  const facts: CallFacts = {
    traceId: randomUUID(), requestId: r.ctx.requestId, environment: call.environment, rpcId: msg.id,
    requestedAgentId: header(r.req.headers, 'x-agent-id')?.slice(0, 200) ?? null, arguments: split.forwarded, mode: call.ownSession ? 'session' : 'gateway',
  };
  const settled = await settle(deps, projectId, ctx, facts);
  const headers = governanceHeaders(settled.written);
  if (settled.d.kind === 'refuse') {
    const { refusal } = settled.d;
    const data = { ...refusal.data, trace_id: settled.written.id, ...(settled.approvalId ? { approval_id: settled.approvalId } : {}) };
    const reply = rpcError(msg.id, refusal.reason, data, refusal.message);
    return { status: reply.status, body: reply.body, headers };
  }
  const { arguments: _dropped, ...rest } = params;
  const forwardedParams = split.forwarded === undefined ? rest : { ...rest, arguments: split.forwarded };
  return forwardCall(deps, call, settled, forwardedParams, headers);
}

function forwardCall(deps: ProxyDeps, call: CallRequest, settled: Settled, params: Record<string, unknown>, headers: Record<string, string>): Reply {
  const { r, msg, server } = call;
  const limits = { dispatcher: deps.upstream, timeoutMs: deps.config.upstreamTimeoutMs, responseLimitBytes: deps.config.upstreamResponseLimitBytes };
  const record = (upstreamStatus: number | null, outcome: string, rpcCode: number | null, latencyMs: number) => deps.outcomes.record({
    trace_id: settled.written.id, project_id: r.principal.projectId, server_id: server.id, tool_name: settled.ctx.toolName,
    upstream_status: upstreamStatus, outcome, rpc_code: rpcCode, latency_ms: latencyMs,
  });
  const signIn = settled.d.state.signIn ?? {};
  if (call.ownSession) {
    return {
      stream: async (res) => {
        const result = await relay(res, {
          url: new URL(server.server_url), method: 'POST', headers: upstreamHeaders(r.req.headers, signIn, 'POST'),
          body: JSON.stringify({ ...(r.body as Record<string, unknown>), params }), rpcId: msg.id, extraHeaders: headers,
          ...(call.sessionId !== undefined ? { onSessionGone: () => unbindSession(deps.sql, server.id, call.sessionId!) } : {}),
        }, limits);
        record(result.upstreamStatus, result.outcome, result.rpcCode, result.latencyMs);
      },
    };
  }
  return {
    stream: async (res) => {
      const gone = new AbortController();
      res.once('close', () => { if (!res.writableFinished) gone.abort(); });
      const started = performance.now();
      const answer = await callThroughGatewaySession(server, call.auth!, limits, 'tools/call', params, gone.signal);
      const latency = performance.now() - started;
      if (answer.kind === 'failure') {
        if (answer.error.kind === 'aborted') return record(answer.error.status ?? null, 'client_gone', null, latency);
        const reason = failureReason(answer.error.kind);
        sendRpcError(res, msg.id, reason, { detail: answer.error.message, trace_id: settled.written.id }, headers);
        return record(answer.error.status ?? null, reason === 'UPSTREAM_UNREACHABLE' ? 'unreachable' : 'invalid_response', reason === 'UPSTREAM_UNREACHABLE' ? -32007 : -32006, latency);
      }
      const body = answer.kind === 'result' ? { jsonrpc: '2.0', id: msg.id, result: answer.result } : { jsonrpc: '2.0', id: msg.id, error: answer.error };
      const text = JSON.stringify(body);
      res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      res.end(text);
      record(200, answer.kind === 'result' ? 'ok' : 'rpc_error', answer.kind === 'rpc_error' ? answer.error.code : null, latency);
    },
  };
}
