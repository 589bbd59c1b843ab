// Stage 6: a call whose rule is REQUIRE_APPROVAL goes through only with an approval decided for
// exactly it (server, tool, agent, the credential that made it, argument hash) and not yet used.
// Otherwise it is held (-32004) with a new approval request, unless the credential is past one of
// its approval limits (approvals/limits.ts: open per agent or per credential, new per minute; -32005).
// What a presented approval id leads to:
//   APPROVED, bound to this call        -> passes; spent atomically when the call is forwarded
//   PENDING, bound to this call         -> held again under the same request (no new one)
//   DENIED, bound to this call          -> -32003 APPROVAL_DENIED (a person said no to this call)
//   same call, other arguments          -> a new request (approval_rejected: arguments_mismatch)
//   USED, EXPIRED, CANCELLED            -> a new request (approval_rejected: used | expired | cancelled)
//   unknown, or bound to another server, tool, agent or credential -> a new request (approval_rejected: not_found)
// A call whose rule is ALLOW or LOG_ONLY ignores a presented id and spends nothing.
import { overLimit } from '../../../approvals/limits.js';
import type { Approval } from '../../../approvals/store.js';
import { deniedMessage, type Rejected } from '../held-message.js';
import { pass, refuse, type CallContext, type CallState, type Refusal, type Stage } from './types.js';

function boundToCall(a: Approval, ctx: CallContext): boolean {
  return (
    a.kind === 'mcp'
    && a.server_id === ctx.server.id
    && a.tool_name === ctx.toolName
    && a.agent_id === (ctx.agent?.id ?? null)
    && a.credential_id === ctx.credentialId
  );
}

function hold(ctx: CallContext, state: CallState, approvalId: string | null, rejected?: Rejected): Refusal {
  const noRule = state.effective?.source === 'no_rule';
  const base = refuse(noRule ? 'NO_TOOL_RULE_REQUIRE_APPROVAL' : 'TOOL_REQUIRES_APPROVAL', {
    tool: ctx.toolName,
    ...(rejected ? { approval_rejected: rejected } : {}),
  });
  return { ...base, detail: { ...base.detail, hold: { approvalId } } };
}

export const approvalStage: Stage = {
  name: 'approval',
  run(ctx, state) {
    if (state.effective?.rule !== 'REQUIRE_APPROVAL') return pass();
    let rejected: Rejected | undefined;
    if (ctx.approvalId !== null) {
      const a = ctx.approval;
      if (a === null || !boundToCall(a, ctx)) rejected = 'not_found';
      else if (a.arguments_hash !== ctx.argumentsHash) rejected = 'arguments_mismatch';
      else if (a.status === 'APPROVED' && new Date(a.expires_at) > ctx.now) return pass({ useApproval: a.id });
      else if (a.status === 'PENDING' && new Date(a.expires_at) > ctx.now) return hold(ctx, state, a.id);
      else if (a.status === 'DENIED')
        return refuse('APPROVAL_DENIED', { tool: ctx.toolName, approval_id: a.id }, deniedMessage(a, ctx.toolName));
      else rejected = a.status === 'USED' ? 'used' : a.status === 'CANCELLED' ? 'cancelled' : 'expired';
    }
    const over =
      ctx.openApprovals
      && overLimit(ctx.openApprovals, ctx.approvalLimits, { credentialId: ctx.credentialId, agentId: ctx.agent?.id ?? null });
    if (over) return refuse(over.reason, { ...over.data, ...(rejected ? { approval_rejected: rejected } : {}) });
    return hold(ctx, state, null, rejected);
  },
};
