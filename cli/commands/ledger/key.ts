// gatewayctl ledger key: only the checkpoint verifier key, one line, for saving out of band
// (gatewayctl ledger key > gateway.vkey) and pinning later with traces check-proof --vkey.
import { GatewayCommand } from '../../base-command.js';
import { safeText } from '../../trace-output.js';
import type { CheckpointState } from './checkpoint.js';

export default class LedgerKey extends GatewayCommand {
  static override summary = 'Print the checkpoint verifier key (vkey) alone, to save out of band and pin with traces check-proof --vkey.';
  static override examples = ['<%= config.bin %> ledger key > checkpoint.vkey'];

  async run(): Promise<{ vkey: string }> {
    await this.parse(LedgerKey);
    const { vkey } = await (await this.api()).request<CheckpointState>('GET', '/api/v1/ledger/checkpoint');
    this.log(safeText(vkey));
    return { vkey };
  }
}
