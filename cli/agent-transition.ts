// The seven lifecycle commands (agents approve, reject, ...) differ only in their operation: this
// base class sends POST /api/v1/agents/{id}/{operation}; each command file names its operation.
import { Args, Flags } from '@oclif/core';
import { transitionBody } from '../shared/agent-schemas.js';
import { checkBody } from './agent-flags.js';
import { GatewayCommand } from './base-command.js';
import { resolveAgent } from './name-or-id.js';
import type { Agent } from './commands/agents/get.js';

export type AgentOperation = 'approve' | 'reject' | 'pause' | 'resume' | 'suspend' | 'reactivate' | 'revoke';

const DONE: Record<AgentOperation, string> = {
  approve: 'Approved',
  reject: 'Rejected',
  pause: 'Paused',
  resume: 'Resumed',
  suspend: 'Suspended',
  reactivate: 'Reactivated',
  revoke: 'Revoked',
};

export abstract class AgentTransitionCommand extends GatewayCommand {
  static override args = {
    id: Args.string({ description: 'ID or name of the agent (see agents list).', required: true }),
  };

  static override flags = {
    reason: Flags.string({ summary: "Why, recorded in the agent's lifecycle trace." }),
  };

  protected abstract readonly operation: AgentOperation;

  async run(): Promise<Agent> {
    const { args, flags } = await this.parse(AgentTransitionCommand);
    const body = checkBody(transitionBody, flags.reason === undefined ? {} : { reason: flags.reason });
    const api = await this.api();
    const { id } = await resolveAgent(api, args.id, this.config.bin, 'ID');
    const agent = await api.request<Agent>('POST', `/api/v1/agents/${encodeURIComponent(id)}/${this.operation}`, body);
    this.log(`${DONE[this.operation]} agent ${agent.id} "${agent.name}": now ${agent.status}.`);
    return agent;
  }
}
