// gatewayctl agents resume: PAUSED -> ACTIVE (Admin).
import { AgentTransitionCommand, type AgentOperation } from '../../agent-transition.js';

export default class AgentsResume extends AgentTransitionCommand {
  static override summary = 'Resume a paused agent.';
  static override examples = ['<%= config.bin %> agents resume AGENT_ID --reason "maintenance over"'];
  protected readonly operation: AgentOperation = 'resume';
}
