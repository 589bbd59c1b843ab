// gatewayctl agents approve: PENDING_APPROVAL -> ACTIVE (Admin).
import { AgentTransitionCommand, type AgentOperation } from '../../agent-transition.js';

export default class AgentsApprove extends AgentTransitionCommand {
  static override summary = 'Approve a pending agent: it becomes ACTIVE and may send traffic.';
  static override examples = ['<%= config.bin %> agents approve AGENT_ID --reason "reviewed by compliance"'];
  protected readonly operation: AgentOperation = 'approve';
}
