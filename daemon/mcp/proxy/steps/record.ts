// Step `record`: the decision made durable before anything leaves (record.ts builds the trace).
//   - forwarded under an approval: the approval is spent and the trace written in one transaction
//     (approvals/held-call.ts). When a concurrent repeat spent it first, nothing is written and the
//     journey runs again from `load` (once), where the approval now reads as used;
//   - held for a new approval: the request and the trace in one transaction, the credential's
//     limits checked again under its lock; a concurrent call that took the last place makes this
//     one a -32005 refusal, its trace only;
//   - anything else: the trace through the group-commit writer (database, or the dead-letter queue
//     when the database is down). If no store takes it, the call is refused with 503 and no body
//     (as verify), and nothing is forwarded.
import { forwardUnderApproval, holdCall } from '../../../approvals/held-call.js';
import type { McpBinding } from '../../../approvals/store.js';
import { findingSummary } from '../../content/inspect.js';
import { argumentFindings, callTrace } from '../record.js';
import { refuse, type Decision } from '../stages/types.js';
import type { Step } from './journey.js';

const holdsAnew = (d: Decision): boolean =>
  d.kind === 'refuse' && d.refusal.detail.hold !== undefined && d.refusal.detail.hold.approvalId === null;

export const recordStep: Step = {
  name: 'record',
  async run(j) {
    const { deps } = j;
    const ctx = j.ctx!;
    const facts = j.facts!;
    const projectId = j.call.r.principal.projectId;
    let d = j.decision!;
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
      if (spent) {
        j.recorded = { d, written: inDb(spent.id), approvalId: d.state.useApproval, expiresAt: null };
        return null;
      }
      // Spent meanwhile (a concurrent repeat), ended or expired: loaded again, it reads as it is now.
      if (!j.raced) return j.again!({ raced: true });
      throw new Error('an approval read as usable twice could not be spent');
    }
    if (holdsAnew(d)) {
      const held = d;
      const result = await holdCall(deps.sql, projectId, binding, {
        traceId: facts.traceId,
        ttlSeconds: deps.config.approvalTtlSeconds,
        limits: ctx.approvalLimits,
        findings: findingSummary(argumentFindings(held)),
        trace: (approvalId) => callTrace(ctx, held, facts, approvalId),
      });
      if (result.limited === null) {
        j.recorded = { d, written: inDb(result.appended.id), approvalId: result.approvalId, expiresAt: result.expiresAt };
        return null;
      }
      // Past a limit under the lock (a concurrent call took the last place): refused, its trace only.
      const rejected = held.kind === 'refuse' ? held.refusal.detail.data?.approval_rejected : undefined;
      d = {
        kind: 'refuse',
        stage: 'approval',
        state: d.state,
        refusal: refuse(result.limited.reason, { ...result.limited.data, ...(rejected ? { approval_rejected: rejected } : {}) }),
      };
    }
    const reused = d.kind === 'refuse' ? (d.refusal.detail.hold?.approvalId ?? null) : null;
    const written = await deps.writer.appendOrQueue(projectId, callTrace(ctx, d, facts, reused));
    j.recorded = {
      d,
      written,
      approvalId: reused,
      expiresAt: reused !== null && ctx.approval?.id === reused ? ctx.approval.expires_at : null,
    };
    return null;
  },
};
