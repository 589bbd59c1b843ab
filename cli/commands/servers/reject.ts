// gatewayctl servers reject: PENDING_APPROVAL -> removed, with its tools (Admin).
import { GatewayCommand } from '../../base-command.js';
import { serverIdArg, serverRoute } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

interface Rejected {
  id: string;
  status: 'REJECTED';
  removed: true;
}

export default class ServersReject extends GatewayCommand {
  static override summary = 'Reject an MCP server awaiting approval: it is removed with its tools.';
  static override examples = ['<%= config.bin %> servers reject SERVER_ID'];
  static override args = serverIdArg;

  async run(): Promise<Rejected> {
    const { args } = await this.parse(ServersReject);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const result = await api.request<Rejected>('POST', serverRoute(id, 'reject'));
    this.log(`Rejected MCP server ${result.id}: removed.`);
    return result;
  }
}
