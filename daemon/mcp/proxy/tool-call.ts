// One tools/call through the proxy: load the context, run the pipeline, make the decision durable,
// then forward (or answer the refusal). In order:
//   1. arguments: `_gateway_approval_id` (or header X-Gateway-Approval-Id) taken out, the rest hashed;
//   2. load.ts (through the state cache), then pipeline.ts (pure) decides; only a call about to be
//      held for a new approval reads its credential's approval counts, and is decided again with them;
//   3. settle: the decision trace is written before anything leaves, by the group-commit writer
//      (database, or the dead-letter queue when the database is down). A held call creates its
//      approval and trace in one transaction; a call under an approval spends it and writes its
//      trace in one transaction (approvals/held-call.ts). A repeat that finds its approval already spent by a
//      concurrent one is decided again with that knowledge (held anew). If no store takes the
//      trace, the call is refused with 503 and no body (as verify), and nothing is forwarded;
//   4. a held call whose client asked to wait (approval-wait.ts) stays open until the decision, then
//      is decided again here as a repeat presenting the approval id would be;
//   5. forward through the caller's own session (relay) or a one-off gateway session, stream the
//      answer back, and record the upstream outcome after (outcomes.ts).
import { randomUUID } from 'node:crypto';
import { MCP_RPC_ERRORS } from '../../../shared/errors.js';
import type { Deps } from '../../deps.js';
import { findApproval, type McpBinding } from '../../approvals/store.js';
import { databaseDegraded } from '../../db/availability.js';
import { governanceHeaders } from '../../http/governance-headers.js';
import type { Reply, RouteRequest } from '../../http/types.js';
import type { PersistOutcome } from '../../ledger/dlq-outcome.js';
import { sealedOriginal } from '../../traces/at-rest.js';
import type { ServerRow } from '../servers/registry.js';
import { bindingHash, splitArguments } from './canonical.js';
import { answerThroughGatewaySession } from './gateway-session.js';
import { relay, upstreamLimits, type RelayResult } from './forward.js';
import { header, upstreamHeaders } from './headers.js';
import { forwardedParamHeaders, paramHeaderMismatch } from './param-headers.js';
import { inspectAhead } from './stages/content.js';
import { forwardUnderApproval, holdCall } from '../../approvals/held-call.js';
import { approvalCountsFor, loadCallContext } from './load.js';
import { progressTokenOf, requestedWait, waitForDecision, waitSecondsFor } from './approval-wait.js';
import type { OutcomeRecorder } from './outcomes.js';
import { runStages, TOOL_CALL_STAGES, type Decision } from './pipeline.js';
import { heldMessage, type Rejected } from './held-message.js';
import { argumentFindings, callTrace, type CallFacts } from './record.js';
import { findingSummary } from '../content/inspect.js';
import { rpcError, type RpcMessage } from './rpc.js';
import { watchResults } from './results.js';
import { unbindSession } from './sessions.js';
import { refuse, type CallAgent, type CallContext } from './stages/types.js';
import type { UpstreamAuth } from '../client/upstream-auth.js';

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
  /** Set when a waiting call is decided again: the approval it waited on (never waits twice). */
  readonly waitedOn?: string;
}

interface Settled {
  readonly d: Decision;
  readonly ctx: CallContext;
  readonly written: PersistOutcome & { readonly id: string };
  readonly approvalId: string | null;
  /** When the request a held call is waiting on expires. */
  readonly expiresAt: string | null;
}

const APPROVAL_ID = /^[\x21-\x7e]{1,100}$/;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function invalidParams(msg: CallRequest['msg'], detail: string): Reply {
  const reply = rpcError(msg.id, 'INVALID_PARAMS', { detail });
  return { status: reply.status, body: reply.body };
}

/** The pipeline's decision; a call about to be held for a new approval is decided again with its credential's approvals counted. */
async function decide(deps: ProxyDeps, projectId: string, ctx0: CallContext): Promise<{ d: Decision; ctx: CallContext }> {
  const d = runStages(TOOL_CALL_STAGES, ctx0);
  if (!(d.kind === 'refuse' && d.refusal.detail.hold && d.refusal.detail.hold.approvalId === null)) return { d, ctx: ctx0 };
  const ctx = await approvalCountsFor(deps.sql, projectId, ctx0);
  return { d: runStages(TOOL_CALL_STAGES, ctx), ctx };
}

async function settle(deps: ProxyDeps, projectId: string, ctx0: CallContext, facts: CallFacts): Promise<Settled> {
  let { d, ctx } = await decide(deps, projectId, ctx0);
  const binding: McpBinding = {
    serverId: ctx.server.id,
    toolName: ctx.toolName,
    agentId: ctx.agent?.id ?? null,
    credentialId: ctx.credentialId,
    argumentsHash: ctx.argumentsHash,
  };
  const inDb = (id: string) => ({ id, persisted: 'db' as const, degradedSubsystems: deps.writer.degradedSubsystems() });
  if (d.kind === 'forward' && d.state.useApproval) {
    const spent = await forwardUnderApproval(deps.sql, projectId, d.state.useApproval, binding, callTrace(ctx, d, facts));
    if (spent) return { d, ctx, written: inDb(spent.id), approvalId: d.state.useApproval, expiresAt: null };
    // Spent meanwhile (a concurrent repeat), ended or expired: decide again knowing its state now.
    const now = await findApproval(deps.sql, projectId, d.state.useApproval);
    ({ d, ctx } = await decide(deps, projectId, {
      ...ctx,
      now: new Date(),
      approval: now && now.status === 'APPROVED' ? { ...now, status: 'USED' } : now,
    }));
  }
  if (d.kind === 'refuse' && d.refusal.detail.hold && d.refusal.detail.hold.approvalId === null) {
    const held = d;
    const result = await holdCall(deps.sql, projectId, binding, {
      traceId: facts.traceId,
      ttlSeconds: deps.config.approvalTtlSeconds,
      limits: ctx.approvalLimits,
      findings: findingSummary(argumentFindings(held)),
      trace: (approvalId) => callTrace(ctx, held, facts, approvalId),
    });
    if (result.limited === null)
      return { d, ctx, written: inDb(result.appended.id), approvalId: result.approvalId, expiresAt: result.expiresAt };
    // Past a limit under the lock (a concurrent call took the last place): refused, its trace only.
    const rejected = held.refusal.detail.data?.approval_rejected;
    d = {
      kind: 'refuse',
      stage: 'approval',
      state: d.state,
      refusal: refuse(result.limited.reason, { ...result.limited.data, ...(rejected ? { approval_rejected: rejected } : {}) }),
    };
  }
  const reused = d.kind === 'refuse' ? (d.refusal.detail.hold?.approvalId ?? null) : null;
  const written = await deps.writer.appendOrQueue(projectId, callTrace(ctx, d, facts, reused));
  return {
    d,
    ctx,
    written,
    approvalId: reused,
    expiresAt: reused !== null && ctx.approval?.id === reused ? ctx.approval.expires_at : null,
  };
}

export async function handleToolCall(deps: ProxyDeps, call: CallRequest): Promise<Reply> {
  const { r, msg, server } = call;
  const params = msg.params ?? {};
  if (typeof params.name !== 'string' || params.name === '' || params.name.length > 500 || params.name.includes('\u0000'))
    return invalidParams(msg, 'params.name must be the tool name');
  if (params.arguments !== undefined && !isObject(params.arguments)) return invalidParams(msg, 'params.arguments must be an object');
  const split = splitArguments(params.arguments as Record<string, unknown> | undefined);
  if ('invalid' in split) return invalidParams(msg, split.invalid);
  const fromHeader = header(r.req.headers, 'x-gateway-approval-id');
  if (fromHeader !== undefined && !APPROVAL_ID.test(fromHeader)) return invalidParams(msg, 'X-Gateway-Approval-Id must be an approval id');
  if (fromHeader !== undefined && split.approvalId !== undefined && fromHeader !== split.approvalId) {
    return invalidParams(msg, 'X-Gateway-Approval-Id and arguments._gateway_approval_id name different approvals');
  }
  const wait = requestedWait(r.req.headers);
  if (typeof wait === 'object') return invalidParams(msg, wait.invalid);
  const projectId = r.principal.projectId;
  const loaded = await loadCallContext(deps.sql, projectId, {
    server,
    agent: call.agent,
    credentialId: r.principal.credentialId,
    auth: call.auth,
    toolName: params.name,
    argumentsHash: bindingHash(split.forwarded, otherParamsOf(params)),
    arguments: split.forwarded,
    otherParams: otherParamsOf(params),
    approvalId: call.waitedOn ?? fromHeader ?? split.approvalId ?? null,
    approvalLimits: {
      perAgent: deps.config.maxPendingApprovalsPerAgent,
      perCredential: deps.config.maxPendingApprovalsPerCredential,
      perMinute: deps.config.approvalRequestsPerMinute,
    },
    detectorBudgetMs: deps.config.detectorBudgetMs,
  });
  // The content stage's inspection, in turns: a large message does not hold the thread from other callers.
  const ctx = await inspectAhead(loaded, deps.config.inspectionBudgetMs);
  // An Mcp-Param-* header the upstream may read instead of the body must say what the body says.
  const paramMismatch = paramHeaderMismatch(r.req.headers, ctx.tool?.inputSchema, split.forwarded);
  if (paramMismatch !== null) {
    const reply = rpcError(msg.id, 'HEADER_MISMATCH', { detail: paramMismatch });
    return { status: reply.status, body: reply.body };
  }
  const facts: CallFacts = {
    traceId: randomUUID(),
    requestId: r.ctx.requestId,
    environment: call.environment,
    rpcId: msg.id,
    requestedAgentId: header(r.req.headers, 'x-agent-id')?.slice(0, 200) ?? null,
    arguments: split.forwarded,
    mode: call.ownSession ? 'session' : 'gateway',
    raw: await sealedOriginal(deps.sql, deps.secretBox, projectId, { name: params.name, arguments: split.forwarded ?? {} }),
  };
  const settled = await settle(deps, projectId, ctx, facts);
  // Decided from the state last read while the database is down: the headers name it (docs/operations.md, "Degraded mode").
  const headers = governanceHeaders(settled.written, databaseDegraded(deps.sql));
  if (settled.d.kind === 'refuse') {
    const { refusal } = settled.d;
    const data = {
      ...refusal.detail.data,
      trace_id: settled.written.id,
      ...(settled.approvalId ? { approval_id: settled.approvalId } : {}),
    };
    const message = heldText(settled) ?? refusal.detail.message;
    // A held call (once: not when it is decided again after its wait) may wait for the decision.
    const waitSeconds =
      refusal.detail.hold && call.waitedOn === undefined ? await waitSecondsFor(deps.sql, projectId, r.req.headers, wait) : 0;
    if (waitSeconds > 0 && settled.approvalId !== null && settled.expiresAt !== null) {
      const waitedOn = settled.approvalId;
      return waitForDecision(
        deps,
        {
          projectId,
          credentialId: r.principal.credentialId,
          rpcId: msg.id,
          approvalId: waitedOn,
          expiresAt: settled.expiresAt,
          tool: settled.ctx.toolName,
          server: server.name,
          waitSeconds,
          progressToken: progressTokenOf(params),
          held: { reason: refusal.code, data, message: message ?? MCP_RPC_ERRORS[refusal.code].message },
          headers,
        },
        () => handleToolCall(deps, { ...call, waitedOn }),
      );
    }
    const reply = rpcError(msg.id, refusal.code, data, message);
    return { status: reply.status, body: reply.body, headers };
  }
  // Masked by a REDACT content policy: the arguments, the other members of params.
  const rest = { name: params.name, ...(settled.d.state.forwardParams ?? otherParamsOf(params)) };
  const forwarded = settled.d.state.forwardArguments ?? split.forwarded;
  const forwardedParams = forwarded === undefined ? rest : { ...rest, arguments: forwarded };
  return forwardCall(deps, call, settled, forwardedParams, headers);
}

/** The members of a tools/call's params beside name and arguments (`_meta`, ...), inspected as arguments are. */
function otherParamsOf(params: Record<string, unknown>): Record<string, unknown> {
  const { name: _name, arguments: _arguments, ...other } = params;
  return other;
}

/** The -32004 text of a held call (held-message.ts); null for any other refusal. */
function heldText(settled: Settled): string | null {
  const { d, ctx, approvalId, expiresAt } = settled;
  const presented = ctx.approvalId; // what the caller sent, when it sent one
  if (d.kind !== 'refuse' || !d.refusal.detail.hold || approvalId === null || expiresAt === null) return null;
  const rejected = d.refusal.detail.data?.approval_rejected as Rejected | undefined;
  return heldMessage({
    tool: ctx.toolName,
    server: ctx.server.name,
    approvalId,
    expiresAt,
    waiting: d.refusal.detail.hold.approvalId !== null,
    ...(rejected && presented !== null ? { rejected: { id: presented, why: rejected } } : {}),
  });
}

function forwardCall(
  deps: ProxyDeps,
  call: CallRequest,
  settled: Settled,
  params: Record<string, unknown>,
  headers: Record<string, string>,
): Reply {
  const { r, msg, server } = call;
  const limits = upstreamLimits(deps.config, deps.upstream);
  const record = (result: RelayResult) =>
    deps.outcomes.record({
      trace_id: settled.written.id,
      project_id: r.principal.projectId,
      server_id: server.id,
      tool_name: settled.ctx.toolName,
      upstream_status: result.upstreamStatus,
      outcome: result.outcome,
      rpc_code: result.rpcCode,
      latency_ms: result.latencyMs,
    });
  const signIn = settled.d.state.signIn ?? {};
  const url = new URL(server.server_url);
  const forwardedArguments = (params.arguments ?? undefined) as Record<string, unknown> | undefined;
  const upstreamHeadersOut = forwardedParamHeaders(
    upstreamHeaders(r.req.headers, signIn, 'POST'),
    settled.ctx.tool?.inputSchema,
    forwardedArguments,
  );
  const watch = watchResults(deps, settled.ctx.contentPolicies, {
    projectId: r.principal.projectId,
    server: settled.ctx.server,
    toolName: settled.ctx.toolName,
    awaited: { id: msg.id, method: 'tools/call' },
    callTraceId: settled.written.id,
    agentId: settled.ctx.agent?.id ?? null,
    environment: call.environment,
    upstream: call.ownSession ? { url, headers: upstreamHeadersOut } : null,
  });
  return {
    stream: async (res) => {
      record(
        call.ownSession
          ? await relay(
              res,
              {
                url,
                method: 'POST',
                headers: upstreamHeadersOut,
                body: JSON.stringify({ ...(r.body as Record<string, unknown>), params }),
                rpcId: msg.id,
                rpcMethod: 'tools/call',
                extraHeaders: headers,
                ...(watch ? { transform: watch.transform } : {}),
                ...(call.sessionId !== undefined ? { onSessionGone: () => unbindSession(deps.sql, server.id, call.sessionId!) } : {}),
              },
              limits,
            )
          : await answerThroughGatewaySession(
              res,
              {
                server,
                auth: call.auth!,
                method: 'tools/call',
                params,
                rpcId: msg.id,
                extraHeaders: headers,
                failureData: { trace_id: settled.written.id },
                ...(watch ? { inspect: watch.transform } : {}),
              },
              limits,
            ),
      );
      await watch?.record();
    },
  };
}
