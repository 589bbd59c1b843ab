// gatewayctl agents pause: ACTIVE -> PAUSED (Admin), for planned stops.
import { AgentTransitionCommand, type AgentOperation } from '../../agent-transition.js';

export default class AgentsPause extends AgentTransitionCommand {
  static override summary = 'Pause an active agent; resume brings it back.';
  static override examples = ['<%= config.bin %> agents pause AGENT_ID --reason "maintenance window"'];
  protected readonly operation: AgentOperation = 'pause';
}
