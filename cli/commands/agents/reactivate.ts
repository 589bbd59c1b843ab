// gatewayctl agents reactivate: SUSPENDED -> ACTIVE (Admin).
import { AgentTransitionCommand, type AgentOperation } from '../../agent-transition.js';

export default class AgentsReactivate extends AgentTransitionCommand {
  static override summary = 'Reactivate a suspended agent.';
  static override examples = ['<%= config.bin %> agents reactivate AGENT_ID --reason "incident closed"'];
  protected readonly operation: AgentOperation = 'reactivate';
}
