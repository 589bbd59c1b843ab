// gatewayctl stop server: the targeted MCP stop of one server (Admin): an ACTIVE server becomes
// BLOCKED (any other status stays) and its approval requests end, so no held call can go through.
import { Args, Flags } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import type { McpStopReply } from '../../../shared/mcp-schemas.js';
import { describeMcpStop, mcpStop } from '../../mcp-stop.js';
import { resolveServer } from '../../name-or-id.js';

export default class StopServer extends GatewayCommand {
  static override summary = 'Stop one MCP server: ACTIVE becomes BLOCKED and its open or approved approval requests are cancelled.';
  static override examples = ['<%= config.bin %> stop server SERVER_ID --reason "incident 42"'];

  static override args = {
    id: Args.string({ description: 'ID or name of the MCP server (see servers list).', required: true }),
  };

  static override flags = {
    reason: Flags.string({ summary: 'Why, for the admin log and the trace.' }),
  };

  async run(): Promise<McpStopReply> {
    const { args, flags } = await this.parse(StopServer);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const reply = await mcpStop(api, 'server', id, flags.reason);
    this.log(describeMcpStop(reply));
    return reply;
  }
}
