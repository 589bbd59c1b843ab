// The two decisions that change an approval, each in one transaction with its trace, so the
// approval and the record of the decision commit together or not at all:
//   hold:    the calling credential's approvals are counted under a per-credential advisory lock
//            (limits.ts: open per credential, open per agent within it, new per minute; concurrent
//            held calls cannot overshoot), the request is created, and the PENDING_APPROVAL trace
//            appended; past a limit nothing is written here (no request, no trace, no webhook). A
//            verify request a policy holds (holdRequest) the same, without the limits;
//   forward: the approval is spent by one conditional UPDATE (consumeMcpApproval) and the PASSED
//            trace appended; of any number of concurrent repeats exactly one sees it APPROVED.
// Both need PostgreSQL (an approval lives there), so neither falls back to the dead-letter queue:
// when the database is unreachable the call is refused with 503 and no body, nothing forwarded.
import { countOpen, overLimit, type ApprovalLimits, type OverLimit } from './limits.js';
import { consumeMcpApproval, createApproval, type McpBinding, type NewApproval } from './store.js';
import { assertDatabaseUp } from '../db/availability.js';
import type { Sql, Tx } from '../db/connect.js';
import { appendTraces, type Appended } from '../ledger/append.js';
import { beginSurvivingDisconnect } from '../db/unreachable.js';
import type { TraceInput } from '../ledger/streams.js';
import { emitEvent } from '../notifications/emit.js';
import { approvalRequested } from '../notifications/events.js';

const CREDENTIAL_LOCK_SEED = 7_361_012;

export interface Held {
  readonly approvalId: string;
  /** When the request expires (ISO 8601). */
  readonly expiresAt: string;
  readonly appended: Appended;
}

export type HoldResult = { readonly limited: OverLimit } | ({ readonly limited: null } & Held);

/** The approval and the PENDING_APPROVAL trace that names it, in `tx`: both commit or neither. */
async function approvalWithTrace(tx: Tx, projectId: string, a: NewApproval, trace: (approvalId: string) => TraceInput): Promise<Held> {
  const approval = await createApproval(tx, projectId, a);
  const input = trace(approval.id);
  const [appended] = await appendTraces(tx, projectId, [input]);
  await emitEvent(tx, projectId, 'approval.requested', approvalRequested(approval, input.content));
  return { approvalId: approval.id, expiresAt: approval.expires_at, appended: appended! };
}

/** Holds a verify request: its approval and its trace in one transaction. */
export async function holdRequest(sql: Sql, projectId: string, a: NewApproval, trace: (approvalId: string) => TraceInput): Promise<Held> {
  assertDatabaseUp(sql); // a held request needs the database: 503 at once while it is known down
  return beginSurvivingDisconnect(sql, (tx) => approvalWithTrace(tx, projectId, a, trace));
}

export async function holdCall(
  sql: Sql,
  projectId: string,
  b: McpBinding,
  opts: {
    traceId: string;
    ttlSeconds: number;
    limits: ApprovalLimits;
    /** What the content policies found in the arguments, for whoever decides. */
    findings: readonly Record<string, unknown>[];
    trace: (approvalId: string) => TraceInput;
  },
): Promise<HoldResult> {
  assertDatabaseUp(sql); // held and approved calls need the database: 503 at once while it is known down
  return beginSurvivingDisconnect(sql, async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${`${projectId}:${b.credentialId}`}, ${CREDENTIAL_LOCK_SEED}))`;
    const limited = overLimit(await countOpen(tx, projectId, b.credentialId, b.agentId), opts.limits, b);
    if (limited) return { limited };
    const held = await approvalWithTrace(
      tx,
      projectId,
      {
        kind: 'mcp',
        traceId: opts.traceId,
        serverId: b.serverId,
        toolName: b.toolName,
        agentId: b.agentId,
        credentialId: b.credentialId,
        argumentsHash: b.argumentsHash,
        ttlSeconds: opts.ttlSeconds,
        findings: opts.findings,
      },
      opts.trace,
    );
    return { limited: null, ...held };
  });
}

/** Spends the approval and records the forwarding decision; null when it was not there to spend. */
export async function forwardUnderApproval(
  sql: Sql,
  projectId: string,
  approvalId: string,
  b: McpBinding,
  trace: TraceInput,
): Promise<Appended | null> {
  assertDatabaseUp(sql); // held and approved calls need the database: 503 at once while it is known down
  return beginSurvivingDisconnect(sql, async (tx) => {
    if (!(await consumeMcpApproval(tx, projectId, approvalId, b))) return null;
    const [appended] = await appendTraces(tx, projectId, [trace]);
    return appended!;
  });
}
