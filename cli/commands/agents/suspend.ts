// gatewayctl agents suspend: ACTIVE -> SUSPENDED (Admin), for incidents; the reason is kept on the agent.
import { AgentTransitionCommand, type AgentOperation } from '../../agent-transition.js';

export default class AgentsSuspend extends AgentTransitionCommand {
  static override summary = 'Suspend an active agent; the reason is kept as its suspended_reason.';
  static override examples = ['<%= config.bin %> agents suspend AGENT_ID --reason "leaked customer data"'];
  protected readonly operation: AgentOperation = 'suspend';
}
