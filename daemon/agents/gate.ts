// Whether a named agent may act: the one answer both pipelines (verify and the MCP proxy) use.
// Only ACTIVE agents act; every other status refuses with its own reason. An id that names no
// agent of the project is anonymous traffic (the specification says so for the proxy, and verify
// follows it so that both pipelines treat one id the same way).
import { MCP_RPC_ERRORS } from '../../shared/errors.js';
import { pass, type Refusal, type Verdict } from '../pipeline/verdict.js';
import type { AgentStatus } from './lifecycle.js';

export type AgentRefusal = 'AGENT_EMERGENCY_STOP' | 'AGENT_PAUSED' | 'AGENT_PENDING_APPROVAL' | 'AGENT_REJECTED' | 'AGENT_REVOKED';

/** The refusal's JSON-RPC code and English message, from the error table. */
export interface AgentRefusalDetail {
  readonly rpcCode: (typeof MCP_RPC_ERRORS)[AgentRefusal]['rpc'];
  readonly message: string;
}

/** The pipelines' one verdict type (pipeline/verdict.ts): passes saying whether the traffic is anonymous. */
export type GateVerdict = Verdict<
  { readonly anonymous: boolean },
  Refusal<AgentRefusal, AgentRefusalDetail> & { readonly detail: AgentRefusalDetail }
>;

/** The refusal of each status; its JSON-RPC code and English message are the error table's. */
const REFUSALS: Record<Exclude<AgentStatus, 'ACTIVE'>, AgentRefusal> = {
  SUSPENDED: 'AGENT_EMERGENCY_STOP',
  PAUSED: 'AGENT_PAUSED',
  PENDING_APPROVAL: 'AGENT_PENDING_APPROVAL',
  REJECTED: 'AGENT_REJECTED',
  REVOKED: 'AGENT_REVOKED',
};

/** `status` is the named agent's status, or null when the id names no agent (anonymous). */
export function agentGate(status: AgentStatus | null): GateVerdict {
  if (status === null) return pass({ anonymous: true });
  if (status === 'ACTIVE') return pass({ anonymous: false });
  const code = REFUSALS[status];
  const { rpc, message } = MCP_RPC_ERRORS[code];
  return { ok: false, code, detail: { rpcCode: rpc, message } };
}
