// gatewayctl servers pause: ACTIVE -> BLOCKED (Admin); any other status is refused by the daemon.
import { GatewayCommand } from '../../base-command.js';
import { serverIdArg, serverRoute, type McpServer } from '../../server-api.js';

export default class ServersPause extends GatewayCommand {
  static override summary = 'Pause an ACTIVE MCP server: it becomes BLOCKED and no call reaches it.';
  static override examples = ['<%= config.bin %> servers pause SERVER_ID'];
  static override args = serverIdArg;

  async run(): Promise<McpServer> {
    const { args } = await this.parse(ServersPause);
    const server = await (await this.api()).request<McpServer>('POST', serverRoute(args.id, 'pause'));
    this.log(`Paused MCP server ${server.id} "${server.name}": now ${server.status}.`);
    return server;
  }
}
