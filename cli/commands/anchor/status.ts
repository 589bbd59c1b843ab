// gatewayctl anchor status: whether this daemon anchors (chain, sending address, epoch length), its
// health, the last anchored epoch and the recent ones as a table.
import { GatewayCommand } from '../../base-command.js';
import { epochTable, type AnchorStatus } from '../../anchor-output.js';
import { keyValues } from '../../format.js';
import { safeText } from '../../trace-output.js';

export default class AnchorStatusCommand extends GatewayCommand {
  static override summary = 'Show ledger anchoring: configuration, health, the last anchored epoch and recent epochs.';
  static override examples = ['<%= config.bin %> anchor status', '<%= config.bin %> anchor status --json'];

  async run(): Promise<AnchorStatus> {
    await this.parse(AnchorStatusCommand);
    const s = await (await this.api()).request<AnchorStatus>('GET', '/api/v1/ledger/anchor');
    const last = s.last_anchored;
    this.log(
      keyValues({
        configured: s.configured,
        chain_id: s.chain_id,
        address: s.address,
        epoch_seconds: s.epoch_seconds,
        health: s.health.state,
        reason: s.health.reason === null ? null : safeText(s.health.reason),
        last_anchored: last ? `epoch ${last.epoch} in block ${last.block_number} (${last.tx_hash})` : null,
        open_epochs: s.open.length,
      }),
    );
    this.log('');
    this.log(s.recent.length > 0 ? epochTable(s.recent) : 'No epochs yet.');
    return s;
  }
}
