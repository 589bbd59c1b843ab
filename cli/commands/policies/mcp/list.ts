// gatewayctl policies mcp list: the project's MCP tool and agent rules (any role), oldest first;
// admission rules are listed too, with their tool.
import { GatewayCommand } from '../../../base-command.js';
import { MCP_POLICIES_ROUTE, mcpPolicyTable, type McpPolicy } from '../../../mcp-policies.js';

export default class PoliciesMcpList extends GatewayCommand {
  static override summary = "List the project's MCP rules: per tool, per agent, or both.";
  static override examples = ['<%= config.bin %> policies mcp list', '<%= config.bin %> policies mcp list --json'];

  async run(): Promise<{ policies: McpPolicy[] }> {
    await this.parse(PoliciesMcpList);
    const result = await (await this.api()).request<{ policies: McpPolicy[] }>('GET', MCP_POLICIES_ROUTE);
    this.log(result.policies.length === 0 ? 'No MCP rules.' : mcpPolicyTable(result.policies));
    return result;
  }
}
