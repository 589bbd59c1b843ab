// The event catalogue: one pure builder per event type, turning what the source already holds into
// the event's `data`. Everything here is display-safe: approval arguments are the masked form the
// trace keeps (traces/at-rest.ts), findings are types and paths, never values; nothing secret.
import type { TEST_EVENT, NotificationEvent } from '../../shared/notification-schemas.js';

export type EventType = NotificationEvent | typeof TEST_EVENT;
export type EventData = Record<string, unknown>;

/** The standard body: what is stored in the outbox and sent as JSON in the `standard` format. */
export interface EventBody {
  readonly type: string;
  readonly timestamp: string;
  readonly data: EventData;
}

/** Arguments whose JSON is longer than this are left out of the event (the summary stays). */
export const ARGUMENTS_MAX_CHARS = 4000;
const SUMMARY_MAX_CHARS = 200;
const DETAIL_MAX_CHARS = 500;

/** What the builders read of an approval (approvals/store.ts's Approval has every field). */
export interface ApprovalFacts {
  readonly id: string;
  readonly kind: 'verify' | 'mcp';
  readonly trace_id: string | null;
  readonly server_id: string | null;
  readonly tool_name: string | null;
  readonly agent_id: string | null;
  readonly status: string;
  readonly expires_at: string;
  readonly decided_at: string | null;
  readonly decided_by: string | null;
  readonly comment: string | null;
  readonly findings: readonly Record<string, unknown>[];
}

export const cut = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The arguments on one line, cut: what a chat message or a list shows. */
export function argumentsSummary(args: unknown): string | null {
  if (args === null || args === undefined) return null;
  return cut(JSON.stringify(args), SUMMARY_MAX_CHARS);
}

const held = (a: ApprovalFacts) => ({
  approval_id: a.id,
  kind: a.kind,
  tool: a.tool_name,
  server_id: a.server_id,
  agent_id: a.agent_id,
  trace_id: a.trace_id,
});

/**
 * A request was held for a person's decision. `content` is the content of the trace that records
 * the hold: for an MCP call its `arguments` are already masked and `server_name` is there. The
 * agent's name (null here) is filled in by emitEvent from the agents table. `credential_id` is the
 * id of the key that made the held call (never the key), so a decider sees which client asked.
 */
export function approvalRequested(
  a: ApprovalFacts & { readonly credential_id: string | null },
  content: Readonly<Record<string, unknown>>,
): EventData {
  const args = a.kind === 'mcp' ? (content.arguments ?? null) : null;
  const tooLong = args !== null && JSON.stringify(args).length > ARGUMENTS_MAX_CHARS;
  return {
    ...held(a),
    credential_id: a.credential_id,
    server_name: typeof content.server_name === 'string' ? content.server_name : null,
    agent_name: null,
    arguments: tooLong ? null : args,
    arguments_summary: argumentsSummary(args),
    ...(tooLong ? { arguments_truncated: true } : {}),
    findings: a.findings,
    expires_at: a.expires_at,
  };
}

export function approvalDecided(a: ApprovalFacts): EventData {
  return {
    ...held(a),
    approved: a.status === 'APPROVED',
    status: a.status,
    decided_by: a.decided_by,
    decided_at: a.decided_at,
    comment: a.comment,
  };
}

export function approvalExpired(a: ApprovalFacts): EventData {
  return { ...held(a), expires_at: a.expires_at };
}

/** An admitted tool's description or schema changed since admission (the rug pull): it is not callable until admitted again. */
export function toolChanged(
  server: { readonly id: string; readonly name: string },
  tool: { readonly id: string; readonly name: string; readonly approved_hash: string | null },
  currentFingerprint: string,
): EventData {
  return {
    server_id: server.id,
    server_name: server.name,
    tool_id: tool.id,
    tool_name: tool.name,
    approved_fingerprint: tool.approved_hash,
    current_fingerprint: currentFingerprint,
  };
}

export function scanFailed(server: { readonly id: string; readonly name: string }, reason: string, detail: string): EventData {
  return { server_id: server.id, server_name: server.name, reason, detail: cut(detail, DETAIL_MAX_CHARS) };
}

export function stopActivated(s: {
  reason: string | null;
  activated_by: string | null;
  activated_at: string | null;
  approvals_ended?: unknown;
}): EventData {
  return {
    reason: s.reason,
    activated_by: s.activated_by,
    activated_at: s.activated_at,
    approvals_ended: typeof s.approvals_ended === 'number' ? s.approvals_ended : 0,
  };
}

export function stopLifted(reason: string | null, liftedBy: string, liftedAt: Date): EventData {
  return { reason, lifted_by: liftedBy, lifted_at: liftedAt.toISOString() };
}

/** Anchoring turned degraded: an epoch could not be moved on (it stays queued and is retried). */
export function anchoringDegraded(e: { epoch: string; state: string; reason: string }): EventData {
  return { epoch: Number(e.epoch), state: e.state, reason: cut(e.reason, DETAIL_MAX_CHARS) };
}

export function testEvent(subscriptionId: string): EventData {
  return { subscription_id: subscriptionId, message: 'A test event from the governance gateway: this subscription receives and verifies.' };
}
