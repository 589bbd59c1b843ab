// gatewayctl servers delete: removes a server with its tools and rules; its open approvals end
// CANCELLED (Admin).
import { GatewayCommand } from '../../base-command.js';
import { serverIdArg, serverRoute } from '../../server-api.js';

export default class ServersDelete extends GatewayCommand {
  static override summary = 'Delete an MCP server with its tools and rules; its open approvals are cancelled.';
  static override examples = ['<%= config.bin %> servers delete SERVER_ID'];
  static override args = serverIdArg;

  async run(): Promise<{ id: string; deleted: true }> {
    const { args } = await this.parse(ServersDelete);
    const result = await (await this.api()).request<{ id: string; deleted: true }>('DELETE', serverRoute(args.id));
    this.log(`Deleted MCP server ${result.id}.`);
    return result;
  }
}
