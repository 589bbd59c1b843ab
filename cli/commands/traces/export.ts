// gatewayctl traces export: the CSV export streamed to a file (through FILE.partial, renamed once
// complete) or to stdout, with a progress line on a terminal and a summary on stderr.
import { Flags } from '@oclif/core';
import { exportQuery } from '../../../shared/export-schemas.js';
import { DECISIONS, TIME_RANGES } from '../../../shared/trace-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import type { Connection } from '../../config.js';
import { CsvClient, downloadCsv } from '../../csv-download.js';
import { count, Progress, type CsvTally } from '../../csv-tally.js';
import { UsageError } from '../../errors.js';

export interface ExportResult extends CsvTally {
  out: string;
}

export default class TracesExport extends GatewayCommand {
  static override summary = 'Export traces as CSV (every environment, oldest first) to a file, or to stdout with --out -.';
  static override examples = [
    '<%= config.bin %> traces export --out traces.csv --decision BLOCKED --time-range 30d',
    '<%= config.bin %> traces export --out - | gzip > traces.csv.gz',
  ];

  static override flags = {
    out: Flags.string({ summary: 'File to write (- for stdout); written as FILE.partial until complete.', required: true }),
    decision: Flags.string({ summary: 'Only traces with this decision.', options: [...DECISIONS] }),
    'time-range': Flags.string({ summary: 'Only traces of the last 24h, 7d or 30d (all: no limit).', options: [...TIME_RANGES] }),
  };

  protected override clientFor(connection: Connection): CsvClient {
    return new CsvClient(connection, this.config.userAgent);
  }

  async run(): Promise<ExportResult> {
    const { flags } = await this.parse(TracesExport);
    const query = checkBody(exportQuery, { format: 'csv', decision: flags.decision, time_range: flags['time-range'] });
    if (flags.out === '-' && this.jsonEnabled()) throw new UsageError('--json needs --out FILE: with --out - stdout carries the CSV');
    const params = new URLSearchParams({ format: query.format });
    if (query.decision) params.set('decision', query.decision);
    if (query.time_range) params.set('time_range', query.time_range);
    const api = await this.api();
    if (!(api instanceof CsvClient)) throw new Error('traces export needs the CSV client');
    const tally = await downloadCsv(api, `/api/v1/export?${params}`, flags.out, new Progress(process.stderr));
    const where = flags.out === '-' ? 'stdout' : flags.out;
    this.notice(`Exported ${count(tally.rows)} rows (${count(tally.bytes)} bytes) to ${where}.`);
    if (tally.truncated) this.notice(`Warning: the export is incomplete, the gateway cut it at its row cap: ${tally.truncated}`);
    return { out: where, ...tally };
  }
}
