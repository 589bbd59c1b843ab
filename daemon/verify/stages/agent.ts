// Stage 1: a named agent that may not act is BLOCKED before anything is scanned, with its lifecycle
// reason (SUSPENDED is AGENT_EMERGENCY_STOP; daemon/agents/gate.ts). Unknown ids are anonymous.
import type { AgentStatus } from '../../agents/lifecycle.js';
import { agentGate } from '../../agents/gate.js';
import { pass } from '../../pipeline/verdict.js';
import { blocked, stop, type Ruling, type Stage } from './types.js';

/** Only ACTIVE agents act; an id naming no agent is anonymous. Null when the agent may act. */
export function gateAgent(agentStatus: AgentStatus | null): Ruling | null {
  const gate = agentGate(agentStatus);
  return gate.ok ? null : blocked(`reason.${gate.code}`, {}, { code: gate.code });
}

export const agentStage: Stage = {
  name: 'agent',
  run(ctx) {
    const refused = gateAgent(ctx.agent?.status ?? null);
    return refused ? stop(refused) : pass({});
  },
};
