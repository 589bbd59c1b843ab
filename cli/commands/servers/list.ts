// gatewayctl servers list: the project's MCP servers with their status, last scan and tool counts.
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import type { McpServer } from '../../server-api.js';

export default class ServersList extends GatewayCommand {
  static override summary = 'List the MCP servers: status, sign-in method, last scan, tools and the proxy URL hosts use.';
  static override examples = ['<%= config.bin %> servers list', '<%= config.bin %> servers list --json'];

  async run(): Promise<{ servers: McpServer[] }> {
    await this.parse(ServersList);
    const result = await (await this.api()).request<{ servers: McpServer[] }>('GET', '/api/v1/mcp/servers');
    if (result.servers.length === 0) {
      this.log('No MCP servers.');
      return result;
    }
    this.log(
      table(
        ['ID', 'NAME', 'STATUS', 'AUTH', 'SCAN', 'TOOLS', 'NOT ADMITTED', 'URL', 'PROXY URL'],
        result.servers.map((s) => [
          s.id,
          s.name,
          s.status,
          s.auth_method,
          s.scan_reason ? `${s.scan_state} (${s.scan_reason})` : s.scan_state,
          s.tool_count,
          s.tools_unreleased,
          s.server_url,
          s.proxy_url,
        ]),
      ),
    );
    return result;
  }
}
