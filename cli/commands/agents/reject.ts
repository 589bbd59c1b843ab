// gatewayctl agents reject: PENDING_APPROVAL -> REJECTED (Admin).
import { AgentTransitionCommand, type AgentOperation } from '../../agent-transition.js';

export default class AgentsReject extends AgentTransitionCommand {
  static override summary = 'Reject a pending agent: it becomes REJECTED and never sends traffic.';
  static override examples = ['<%= config.bin %> agents reject AGENT_ID --reason "no FRIA"'];
  protected readonly operation: AgentOperation = 'reject';
}
