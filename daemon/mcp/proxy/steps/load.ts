// Step `load`: everything the decision reads, before it is made (load.ts, through the state cache):
// server, agent, tool, rules, content policies, the approval the caller presents and, when the
// effective rule is REQUIRE_APPROVAL and no usable approval is presented, the credential's open
// approvals (the approval stage's limits). The content stage's inspection is made here too, in
// turns, so that a large message does not hold the thread from other callers. An Mcp-Param-*
// header the upstream may read instead of the body must say what the body says (-32020). Last, the
// facts of the trace: its id, the caller's words sealed at audit level full.
import { randomUUID } from 'node:crypto';
import { sealedOriginal } from '../../../traces/at-rest.js';
import { bindingHash } from '../canonical.js';
import { header } from '../headers.js';
import { approvalCountsFor, loadAuditLevel, loadCallContext } from '../load.js';
import { paramHeaderMismatch } from '../param-headers.js';
import { rpcError } from '../rpc.js';
import { inspectAhead } from '../stages/content.js';
import { effectiveOf } from '../stages/rule.js';
import type { CallContext } from '../stages/types.js';
import type { Step } from './journey.js';

/** The approval stage may hold this call for a new request: it reads the credential's open approvals. */
function mayHoldAnew(ctx: CallContext): boolean {
  if (ctx.tool === null || effectiveOf(ctx).rule !== 'REQUIRE_APPROVAL') return false;
  return ctx.approval === null || (ctx.approval.status !== 'APPROVED' && ctx.approval.status !== 'PENDING');
}

export const loadStep: Step = {
  name: 'load',
  async run(j) {
    const { deps, call } = j;
    const { r, msg, server } = call;
    const input = j.input!;
    const projectId = r.principal.projectId;
    let ctx = await loadCallContext(deps.sql, projectId, {
      server,
      agent: call.agent,
      credentialId: r.principal.credentialId,
      subject: r.principal.subject ?? null,
      auth: call.auth,
      toolName: input.name,
      argumentsHash: bindingHash(input.forwarded, input.otherParams),
      arguments: input.forwarded,
      otherParams: input.otherParams,
      approvalId: j.waitedOn ?? input.approvalId,
      approvalLimits: {
        perAgent: deps.config.maxPendingApprovalsPerAgent,
        perCredential: deps.config.maxPendingApprovalsPerCredential,
        perMinute: deps.config.approvalRequestsPerMinute,
      },
      detectorBudgetMs: deps.config.detectorBudgetMs,
    });
    // Loaded again after a concurrent repeat spent the approval first: what the spend learnt stands.
    if (j.raced && ctx.approval?.status === 'APPROVED') ctx = { ...ctx, approval: { ...ctx.approval, status: 'USED' } };
    if (mayHoldAnew(ctx)) ctx = await approvalCountsFor(deps.sql, projectId, ctx);
    ctx = await inspectAhead(ctx, deps.config.inspectionBudgetMs);
    const paramMismatch = paramHeaderMismatch(r.req.headers, ctx.tool?.inputSchema, input.forwarded);
    if (paramMismatch !== null) {
      const reply = rpcError(msg.id, 'HEADER_MISMATCH', { detail: paramMismatch });
      return { status: reply.status, body: reply.body };
    }
    j.ctx = ctx;
    j.facts = {
      traceId: randomUUID(),
      requestId: r.ctx.requestId,
      environment: call.environment,
      rpcId: msg.id,
      requestedAgentId: header(r.req.headers, 'x-agent-id')?.slice(0, 200) ?? null,
      arguments: input.forwarded,
      mode: call.ownSession ? 'session' : 'gateway',
      raw: await sealedOriginal(
        deps.sql,
        deps.secretBox,
        projectId,
        { name: input.name, arguments: input.forwarded ?? {} },
        await loadAuditLevel(deps.sql, projectId),
      ),
    };
    return null;
  },
};
