// gatewayctl policies mcp remove: deletes an MCP rule (Admin); like every rule change it is a
// POLICY_CHANGE trace and an admin-log entry. There is no update: remove and add, or servers verdict.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../../base-command.js';
import { MCP_POLICIES_ROUTE } from '../../../mcp-policies.js';

export default class PoliciesMcpRemove extends GatewayCommand {
  static override summary = 'Remove an MCP rule (Admin).';
  static override aliases = ['policies:mcp:delete'];
  static override examples = ['<%= config.bin %> policies mcp remove POLICY_ID'];
  static override args = {
    id: Args.string({ description: 'ID of the rule (see policies mcp list).', required: true }),
  };

  async run(): Promise<{ id: string; deleted: true }> {
    const { args } = await this.parse(PoliciesMcpRemove);
    const result = await (await this.api()).request<{ id: string; deleted: true }>(
      'DELETE',
      `${MCP_POLICIES_ROUTE}/${encodeURIComponent(args.id)}`,
    );
    this.log(`Removed MCP rule ${result.id}.`);
    return result;
  }
}
