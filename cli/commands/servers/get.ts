// gatewayctl servers get: one MCP server's record (never its credential, which the daemon keeps).
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';
import { serverIdArg, type McpServer } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

export default class ServersGet extends GatewayCommand {
  static override summary = 'Show an MCP server: address, proxy URL, sign-in method, status, last scan and tool counts.';
  static override examples = ['<%= config.bin %> servers get SERVER_ID --json'];
  static override args = serverIdArg;

  async run(): Promise<McpServer> {
    const { args } = await this.parse(ServersGet);
    const api = await this.api();
    const server = await resolveServer(api, args.id, this.config.bin);
    this.log(
      keyValues(
        Object.fromEntries(
          Object.entries(server).map(([k, v]) => [k, v !== null && typeof v === 'object' ? JSON.stringify(v) : (v as string)]),
        ),
      ),
    );
    return server;
  }
}
