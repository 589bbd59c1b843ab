// gatewayctl traces verify-chain: asks the daemon to re-verify a whole hash chain. Exit 1 when
// it is broken, so that a cron job or CI step fails loudly.
import { Flags } from '@oclif/core';
import type { ChainReport } from '../../../shared/trace-schemas.js';
import { GatewayCommand } from '../../base-command.js';
import { EXIT } from '../../errors.js';

export default class TracesVerifyChain extends GatewayCommand {
  static override summary = 'Re-verify the trace (or admin-log) hash chain; exits 1 when a link is broken.';
  static override examples = ['<%= config.bin %> traces verify-chain', '<%= config.bin %> traces verify-chain --stream admin --json'];
  static override flags = {
    stream: Flags.string({ summary: 'Which chain to verify.', options: ['traces', 'admin'], default: 'traces' }),
  };

  async run(): Promise<ChainReport> {
    const { flags } = await this.parse(TracesVerifyChain);
    const report = await (await this.api()).request<ChainReport>(
      'GET',
      `/api/v1/ledger/verify-chain?stream=${encodeURIComponent(flags.stream)}`,
    );
    const broken = report.first_broken;
    if (report.intact) {
      this.log(`${report.stream} chain intact: ${report.checked} entries checked, head ${report.head}.`);
    } else {
      const where = broken
        ? `at sequence ${broken.sequence_num}${broken.id ? ` (id ${broken.id})` : ''}: ${broken.reason}`
        : '(no link named)';
      this.log(`${report.stream} chain BROKEN ${where}. ${report.checked} entries checked.`);
      process.exitCode = EXIT.refused;
    }
    return report;
  }
}
