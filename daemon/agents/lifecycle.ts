// The agent lifecycle of the specification, as data: each operation, the states it may start
// from and the state it leads to. REVOKED is terminal: revoke starts from every other state.
// Everything that changes an agent's status (the transition routes and PATCH status) asks here.

import { AGENT_STATUSES, type AgentStatus } from '../../shared/agent-schemas.js';

export { AGENT_STATUSES };
export type { AgentStatus };

export const TRANSITIONS = {
  approve: { from: ['PENDING_APPROVAL'], to: 'ACTIVE' },
  reject: { from: ['PENDING_APPROVAL'], to: 'REJECTED' },
  pause: { from: ['ACTIVE'], to: 'PAUSED' },
  resume: { from: ['PAUSED'], to: 'ACTIVE' },
  suspend: { from: ['ACTIVE'], to: 'SUSPENDED' },
  reactivate: { from: ['SUSPENDED'], to: 'ACTIVE' },
  revoke: { from: ['PENDING_APPROVAL', 'ACTIVE', 'PAUSED', 'SUSPENDED', 'REJECTED'], to: 'REVOKED' },
} as const satisfies Record<string, { from: readonly AgentStatus[]; to: AgentStatus }>;

export type AgentOperation = keyof typeof TRANSITIONS;
export const AGENT_OPERATIONS = Object.keys(TRANSITIONS) as AgentOperation[];

/** The state an operation leads to from `current`, or null when the table has no such row. */
export function nextStatus(current: AgentStatus, operation: AgentOperation): AgentStatus | null {
  const row = TRANSITIONS[operation];
  return (row.from as readonly AgentStatus[]).includes(current) ? row.to : null;
}

/** The operation that takes `current` to `target` (PATCH status), or null when none does. */
export function operationTo(current: AgentStatus, target: AgentStatus): AgentOperation | null {
  return AGENT_OPERATIONS.find((op) => nextStatus(current, op) === target) ?? null;
}
