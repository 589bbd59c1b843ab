// gatewayctl stop agent: the targeted MCP stop of one agent (Admin): its approval requests end, so
// none of its held calls can go through. The agent's own status is unchanged (agents suspend for that).
import { Args, Flags } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import type { McpStopReply } from '../../../shared/mcp-schemas.js';
import { describeMcpStop, mcpStop } from '../../mcp-stop.js';
import { mcpAgentId } from '../../name-or-id.js';

export default class StopAgent extends GatewayCommand {
  static override summary = "Stop one agent's MCP approvals: its open or approved approval requests are cancelled.";
  static override examples = ['<%= config.bin %> stop agent AGENT_ID --reason "incident 42"'];

  static override args = {
    id: Args.string({ description: 'ID or name of the agent (see agents list).', required: true }),
  };

  static override flags = {
    reason: Flags.string({ summary: 'Why, for the admin log and the trace.' }),
  };

  async run(): Promise<McpStopReply> {
    const { args, flags } = await this.parse(StopAgent);
    const api = await this.api();
    const id = await mcpAgentId(api, args.id, 'ID');
    const reply = await mcpStop(api, 'agent', id, flags.reason);
    this.log(describeMcpStop(reply));
    return reply;
  }
}
