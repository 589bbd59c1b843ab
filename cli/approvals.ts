// What the approvals commands share: how a person reads an approval request as GET /approvals
// returns it (shared/approval-view.ts): what is held, by whom, a one-line argument summary, the time left.
import type { ApprovalView } from '../shared/approval-view.js';
import { safeText } from './trace-output.js';

export type Approval = ApprovalView;

/** What was held: the verify trace, or the tool on its server (by name). */
export function heldSubject(a: Approval): string | null {
  if (a.kind === 'verify') return a.trace_id ? `prompt (trace ${a.trace_id})` : 'prompt';
  return safeText(`${a.tool_name ?? '?'} on ${a.server_name ?? a.server_id ?? '?'}`, 60);
}

export function agentLabel(a: Approval): string | null {
  if (a.agent_id === null) return null;
  return safeText(a.agent_name ? `${a.agent_name} (${a.agent_id})` : a.agent_id, 50);
}

/** The arguments on one line, cut to `max` characters (escaped: they are the caller's text). */
export function argumentSummary(a: Approval, max = 60): string | null {
  if (a.arguments === null || a.arguments === undefined) return null;
  return safeText(JSON.stringify(a.arguments), max);
}

/** "12m 5s" until expiry, or "expired". */
export function timeLeft(a: Approval, now = Date.now()): string {
  const ms = Date.parse(a.expires_at) - now;
  if (!(ms > 0)) return 'expired';
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return h > 0 ? `${h}h ${m}m` : m > 0 ? `${m}m ${s % 60}s` : `${s}s`;
}
