// The two decisions that change an approval, each in one transaction with its trace, so the
// approval and the record of the decision commit together or not at all:
//   hold:    the agent's open approvals are counted under a per-agent advisory lock (so concurrent
//            held calls cannot overshoot GATEWAY_MAX_PENDING_APPROVALS_PER_AGENT), the request is
//            created, and the PENDING_APPROVAL trace appended;
//   forward: the approval is spent by one conditional UPDATE (consumeMcpApproval) and the PASSED
//            trace appended; of any number of concurrent repeats exactly one sees it APPROVED.
// Both need PostgreSQL (an approval lives there), so neither falls back to the dead-letter queue:
// when the database is unreachable the call is refused with 503 and no body, nothing forwarded.
import { consumeMcpApproval, createApproval, openCountForAgent, type McpBinding } from '../../approvals/store.js';
import type { Sql } from '../../db/connect.js';
import { appendTraces, type Appended } from '../../ledger/append.js';
import { beginSurvivingDisconnect } from '../../ledger/dlq-outcome.js';
import type { TraceInput } from '../../ledger/streams.js';

const AGENT_LOCK_SEED = 7_361_011;

export type HoldResult = { readonly limited: true } | { readonly limited: false; readonly approvalId: string; readonly appended: Appended };

export async function holdCall(sql: Sql, projectId: string, b: McpBinding, opts: { traceId: string; ttlSeconds: number; maxPending: number; trace: (approvalId: string) => TraceInput }): Promise<HoldResult> {
  return beginSurvivingDisconnect(sql, async (tx) => {
    if (b.agentId !== null) {
      await tx`select pg_advisory_xact_lock(hashtextextended(${`${projectId}:${b.agentId}`}, ${AGENT_LOCK_SEED}))`;
      if (await openCountForAgent(tx, projectId, b.agentId) >= opts.maxPending) return { limited: true as const };
    }
    const approval = await createApproval(tx, projectId, {
      kind: 'mcp', traceId: opts.traceId, serverId: b.serverId, toolName: b.toolName, agentId: b.agentId,
      argumentsHash: b.argumentsHash, ttlSeconds: opts.ttlSeconds,
    });
    const [appended] = await appendTraces(tx, projectId, [opts.trace(approval.id)]);
    return { limited: false as const, approvalId: approval.id, appended: appended! };
  });
}

/** Spends the approval and records the forwarding decision; null when it was not there to spend. */
export async function forwardUnderApproval(sql: Sql, projectId: string, approvalId: string, b: McpBinding, trace: TraceInput): Promise<Appended | null> {
  return beginSurvivingDisconnect(sql, async (tx) => {
    if (!(await consumeMcpApproval(tx, projectId, approvalId, b))) return null;
    const [appended] = await appendTraces(tx, projectId, [trace]);
    return appended!;
  });
}
