// gatewayctl servers pause: ACTIVE -> BLOCKED (Admin); any other status is refused by the daemon.
import { GatewayCommand } from '../../base-command.js';
import { serverIdArg, serverRoute, type McpServer } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

export default class ServersPause extends GatewayCommand {
  static override summary = 'Pause an ACTIVE MCP server: it becomes BLOCKED and no call reaches it.';
  static override examples = ['<%= config.bin %> servers pause SERVER_ID'];
  static override args = serverIdArg;

  async run(): Promise<McpServer> {
    const { args } = await this.parse(ServersPause);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const server = await api.request<McpServer>('POST', serverRoute(id, 'pause'));
    this.log(`Paused MCP server ${server.id} "${server.name}": now ${server.status}.`);
    return server;
  }
}
