// What the approvals commands share: an approval request as GET /approvals returns it (with the
// server's and agent's names and the held call's display-safe arguments), and how a person reads
// one: what is held, by whom, a one-line argument summary, the time left.
import { safeText } from './trace-output.js';

export interface Approval {
  id: string;
  kind: 'verify' | 'mcp';
  trace_id: string | null;
  server_id: string | null;
  server_name: string | null;
  tool_name: string | null;
  agent_id: string | null;
  agent_name: string | null;
  /** The key or token (its id) whose call opened the request: only it can use the approval. */
  credential_id: string | null;
  arguments: unknown;
  arguments_hash: string;
  status: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  comment: string | null;
  findings: { detector: string; entity: string; path: string; effect: string }[];
}

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
