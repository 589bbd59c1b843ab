// Stage 1: a named agent that may not act is refused (-32003): SUSPENDED is AGENT_EMERGENCY_STOP,
// the other lifecycle states their own reasons (daemon/agents/gate.ts). Unknown ids are anonymous.
import { agentGate } from '../../../agents/gate.js';
import { pass, refuse, type Stage } from './types.js';

export const agentStage: Stage = {
  name: 'agent',
  run(ctx) {
    const verdict = agentGate(ctx.agent?.status ?? null);
    return verdict.ok ? pass() : refuse(verdict.code, { agent_id: ctx.agent!.id }, verdict.detail.message);
  },
};
