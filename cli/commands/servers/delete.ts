// gatewayctl servers delete: removes a server with its tools and rules; its open approvals end
// CANCELLED (Admin).
import { GatewayCommand } from '../../base-command.js';
import { serverIdArg, serverRoute } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

export default class ServersDelete extends GatewayCommand {
  static override summary = 'Delete an MCP server with its tools and rules; its open approvals are cancelled.';
  static override examples = ['<%= config.bin %> servers delete SERVER_ID'];
  static override args = serverIdArg;

  async run(): Promise<{ id: string; deleted: true }> {
    const { args } = await this.parse(ServersDelete);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const result = await api.request<{ id: string; deleted: true }>('DELETE', serverRoute(id));
    this.log(`Deleted MCP server ${result.id}.`);
    return result;
  }
}
