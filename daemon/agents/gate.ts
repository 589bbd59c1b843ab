// Whether a named agent may act: the one answer both pipelines (verify and the MCP proxy) use.
// Only ACTIVE agents act; every other status refuses with its own reason. An id that names no
// agent of the project is anonymous traffic (the specification says so for the proxy, and verify
// follows it so that both pipelines treat one id the same way).
import type { AgentStatus } from './lifecycle.js';

export type AgentRefusal =
  | 'AGENT_EMERGENCY_STOP'
  | 'AGENT_PAUSED'
  | 'AGENT_PENDING_APPROVAL'
  | 'AGENT_REJECTED'
  | 'AGENT_REVOKED';

export type GateVerdict =
  | { ok: true; anonymous: boolean }
  | { ok: false; reason: AgentRefusal; rpcCode: -32003; message: string };

const REFUSALS: Record<Exclude<AgentStatus, 'ACTIVE'>, { reason: AgentRefusal; message: string }> = {
  SUSPENDED: { reason: 'AGENT_EMERGENCY_STOP', message: 'The agent is suspended.' },
  PAUSED: { reason: 'AGENT_PAUSED', message: 'The agent is paused.' },
  PENDING_APPROVAL: { reason: 'AGENT_PENDING_APPROVAL', message: 'The agent is not approved yet.' },
  REJECTED: { reason: 'AGENT_REJECTED', message: 'The agent was rejected.' },
  REVOKED: { reason: 'AGENT_REVOKED', message: 'The agent was revoked.' },
};

/** `status` is the named agent's status, or null when the id names no agent (anonymous). */
export function agentGate(status: AgentStatus | null): GateVerdict {
  if (status === null) return { ok: true, anonymous: true };
  if (status === 'ACTIVE') return { ok: true, anonymous: false };
  const refusal = REFUSALS[status];
  return { ok: false, reason: refusal.reason, rpcCode: -32003, message: refusal.message };
}
