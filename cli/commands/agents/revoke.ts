// gatewayctl agents revoke: any status -> REVOKED (Admin); REVOKED is final.
import { AgentTransitionCommand, type AgentOperation } from '../../agent-transition.js';

export default class AgentsRevoke extends AgentTransitionCommand {
  static override summary = 'Revoke an agent for good: REVOKED is final and cannot be undone.';
  static override examples = ['<%= config.bin %> agents revoke AGENT_ID --reason "decommissioned"'];
  protected readonly operation: AgentOperation = 'revoke';
}
