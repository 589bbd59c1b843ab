// gatewayctl traces check-chain (old name: traces verify-chain, kept as an alias): asks the daemon
// to re-check a whole hash chain. Exit 1 when it is broken, so that a cron job or CI step fails loudly.
import { Flags } from '@oclif/core';
import type { ChainReport } from '../../../shared/trace-schemas.js';
import { GatewayCommand } from '../../base-command.js';
import { EXIT } from '../../errors.js';

export default class TracesCheckChain extends GatewayCommand {
  static override aliases = ['traces:verify-chain'];
  static override deprecateAliases = true;
  static override summary = 'Re-check the trace (or admin-log) hash chain; exits 1 when a link is broken.';
  static override examples = ['<%= config.bin %> traces check-chain', '<%= config.bin %> traces check-chain --stream admin --json'];
  static override flags = {
    stream: Flags.string({ summary: 'Which chain to check.', options: ['traces', 'admin'], default: 'traces' }),
  };

  async run(): Promise<ChainReport> {
    const { flags } = await this.parse(TracesCheckChain);
    const report = await (await this.api()).request<ChainReport>(
      'GET',
      `/api/v1/ledger/check-chain?stream=${encodeURIComponent(flags.stream)}`,
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
