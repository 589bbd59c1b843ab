// gatewayctl servers scan: reads the server's tools (Editor). A scan changes no status and admits
// nothing. Exit 1 when it failed (scanned false) or could not run (the daemon's 400 and its code).
import { GatewayCommand } from '../../base-command.js';
import { EXIT } from '../../errors.js';
import { keyValues } from '../../format.js';
import { serverIdArg, serverRoute, type ScanReply } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

export default class ServersScan extends GatewayCommand {
  static override summary = "Scan an MCP server's tools; exits 1 when the scan fails or cannot run.";
  static override description =
    'Nothing is sent when the sign-in cannot be attached or the address is not allowed: the daemon '
    + 'refuses with auth_method_unsupported, auth_token_missing or upstream_url_forbidden.';

  static override examples = ['<%= config.bin %> servers scan SERVER_ID', '<%= config.bin %> servers scan SERVER_ID --json'];
  static override args = serverIdArg;

  async run(): Promise<ScanReply> {
    const { args } = await this.parse(ServersScan);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const reply = await api.request<ScanReply>('POST', serverRoute(id, 'scan'));
    if (reply.scanned) {
      this.log(`Scanned MCP server ${id}: ${reply.tool_count} tools.`);
      this.log(
        keyValues({
          tools_new: reply.tools_new,
          tools_vanished: reply.tools_vanished,
          poisoning_suspects: reply.poisoning_suspects,
          tools_unreleased: reply.tools_unreleased,
          policies_bound: reply.policies_bound,
          server_status: reply.server_status,
        }),
      );
    } else {
      this.log(`Scan of MCP server ${id} failed: ${reply.reason}.`);
      this.log(keyValues({ reason: reply.reason, detail: reply.detail, target: reply.target, server_status: reply.server_status }));
      process.exitCode = EXIT.refused;
    }
    return reply;
  }
}
