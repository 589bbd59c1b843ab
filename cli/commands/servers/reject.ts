// gatewayctl servers reject: PENDING_APPROVAL -> removed, with its tools (Admin).
import { GatewayCommand } from '../../base-command.js';
import { serverIdArg, serverRoute } from '../../server-api.js';

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
    const result = await (await this.api()).request<Rejected>('POST', serverRoute(args.id, 'reject'));
    this.log(`Rejected MCP server ${result.id}: removed.`);
    return result;
  }
}
