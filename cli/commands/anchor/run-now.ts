// gatewayctl anchor run-now: one anchor cycle now (Admin). Prints the epoch it worked on; exits 1
// when that epoch ends FAILED or is still waiting with an error (node down, no funds, wrong chain),
// as it does when the daemon refuses (e.g. 409 anchoring_not_configured).
import { Flags } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { epochFields, type Epoch } from '../../anchor-output.js';
import { EXIT } from '../../errors.js';

export default class AnchorRunNow extends GatewayCommand {
  static override summary = 'Run one ledger anchoring cycle now and print the epoch (exit 1 when it failed or is stuck).';
  static override examples = ['<%= config.bin %> anchor run-now', '<%= config.bin %> anchor run-now --timeout 120'];

  static override flags = {
    timeout: Flags.integer({ description: 'Seconds to wait for the cycle (it waits for the transaction receipt).', default: 600, min: 1 }),
  };

  async run(): Promise<{ ran: boolean; epoch: Epoch | null }> {
    const { flags } = await this.parse(AnchorRunNow);
    const result = await (await this.api()).request<{ ran: boolean; epoch: Epoch | null }>(
      'POST',
      '/api/v1/ledger/anchor/run',
      undefined,
      flags.timeout * 1000,
    );
    const e = result.epoch;
    if (!e) {
      this.log('Nothing to anchor: no checkpoint grew since the last epoch.');
      return result;
    }
    this.log(epochFields(e));
    if (e.state === 'FAILED' || (e.state !== 'ANCHORED' && e.last_error !== null)) process.exitCode = EXIT.refused;
    return result;
  }
}
