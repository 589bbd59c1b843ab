// gatewayctl ledger checkpoint: the daemon's checkpoint verifier key and the project's latest
// signed checkpoint. Keep the vkey somewhere the gateway cannot write (a SIEM, a repository) and
// pass it to traces check-proof --vkey: a proof is only as good as the key it is checked against.
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';
import { safeText } from '../../trace-output.js';

export interface CheckpointState {
  vkey: string;
  checkpoint: { tree_size: number; root: string; note: string; created_at: string } | null;
}

export default class LedgerCheckpoint extends GatewayCommand {
  static override summary = 'Show the checkpoint verifier key (vkey) and the latest signed checkpoint of the trace ledger.';
  static override examples = ['<%= config.bin %> ledger checkpoint', '<%= config.bin %> ledger checkpoint --json'];

  async run(): Promise<CheckpointState> {
    await this.parse(LedgerCheckpoint);
    const state = await (await this.api()).request<CheckpointState>('GET', '/api/v1/ledger/checkpoint');
    const cp = state.checkpoint;
    this.log(keyValues({ vkey: safeText(state.vkey), tree_size: cp?.tree_size, root: cp?.root, created_at: cp?.created_at }));
    if (cp)
      this.log(
        `\nSigned note:\n${cp.note
          .replace(/\n$/, '')
          .split('\n')
          .map((line) => (line === '' ? '' : `  ${safeText(line)}`))
          .join('\n')}`,
      );
    else this.log('\nNo checkpoint yet: the daemon signs one within its checkpoint interval once the ledger has traces.');
    return state;
  }
}
