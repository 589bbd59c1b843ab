// gatewayctl registry sync: refreshes the registry snapshot the daemon serves, from a registry's
// GET /v0.1/servers (every page) or from a saved answer. Talks to no gateway; restart gatewayd
// afterwards, since the daemon reads the snapshot once at start.
import { Flags } from '@oclif/core';
import { BUNDLED_SNAPSHOT } from '../../../shared/mcp-registry-format.js';
import { GatewayCommand } from '../../base-command.js';
import { syncRegistry, type SyncResult } from '../../registry-sync.js';

export default class RegistrySync extends GatewayCommand {
  static override summary = 'Refresh the MCP registry snapshot from a registry URL or a saved list (active entries only).';
  static override examples = [
    '<%= config.bin %> registry sync --from https://registry.modelcontextprotocol.io',
    '<%= config.bin %> registry sync --from ./servers.json --out ./preview.json   # to review before replacing',
  ];

  static override flags = {
    from: Flags.string({
      summary: 'Registry base URL (http(s)://...; pages GET /v0.1/servers) or a JSON file in that format.',
      required: true,
    }),
    out: Flags.string({ summary: 'Snapshot file to write; the default is the one gatewayd serves.', default: BUNDLED_SNAPSHOT }),
  };

  async run(): Promise<SyncResult> {
    const { flags } = await this.parse(RegistrySync);
    const result = await syncRegistry(flags.from, flags.out, this.config.userAgent);
    const d = result.dropped;
    this.log(
      `Wrote ${result.kept} active entries to ${result.out} (${result.received} received in ${result.pages} page${result.pages === 1 ? '' : 's'}; `
        + `left out ${d.inactive} not active, ${d.older_versions} older versions, ${d.invalid} malformed).`,
    );
    this.notice('Restart gatewayd to serve the new snapshot.');
    return result;
  }
}
