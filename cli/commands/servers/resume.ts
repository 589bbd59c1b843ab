// gatewayctl servers resume: BLOCKED -> ACTIVE (POST /mcp/servers/{id}/activate with an empty body,
// Admin). It admits nothing: a tool changed since its admission stays blocked until released.
import { GatewayCommand } from '../../base-command.js';
import { GatewayRefusal } from '../../errors.js';
import { serverIdArg, serverRoute, type McpServer } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

export default class ServersResume extends GatewayCommand {
  static override summary = 'Resume a BLOCKED MCP server: it becomes ACTIVE again; no tool is admitted by it.';
  static override description =
    'Tools changed since their admission stay blocked: admit them with servers release. A server awaiting '
    + 'approval is not resumed but approved (servers approve); the daemon then answers mcp_release_tools_required.';

  static override examples = ['<%= config.bin %> servers resume SERVER_ID'];
  static override args = serverIdArg;

  async run(): Promise<McpServer> {
    const { args } = await this.parse(ServersResume);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    let server: McpServer;
    try {
      server = await api.request<McpServer>('POST', serverRoute(id, 'activate'), {});
    } catch (err) {
      if (err instanceof GatewayRefusal && err.code === 'mcp_release_tools_required') {
        this.notice(`Hint: a server awaiting approval is approved, not resumed: ${this.config.bin} servers approve ${id}`);
      }
      throw err;
    }
    this.log(`Resumed MCP server ${server.id} "${server.name}": now ${server.status}.`);
    return server;
  }
}
