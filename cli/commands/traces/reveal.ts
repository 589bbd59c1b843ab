// gatewayctl traces reveal: the raw original of a trace, unmasked (Admin, audit level full). The
// daemon logs every reveal; the warning on stderr says so, and stays out of the JSON on stdout.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { safeJson } from '../../trace-output.js';

export interface Revealed {
  trace_id: string;
  raw: unknown;
  revealed_at: string;
}

export default class TracesReveal extends GatewayCommand {
  static override summary = 'Print the raw, unmasked original of a trace (Admin; audit level full). Every reveal is audited.';
  static override examples = ['<%= config.bin %> traces reveal TRACE_ID'];
  static override args = {
    id: Args.string({ description: 'ID of the trace (see traces list).', required: true }),
  };

  async run(): Promise<Revealed> {
    const { args } = await this.parse(TracesReveal);
    const route = `/api/v1/traces/${encodeURIComponent(args.id)}/reveal`;
    const revealed = await (await this.api()).request<Revealed>('GET', route);
    this.notice(`Warning: SENSITIVE: the raw original of trace ${revealed.trace_id}, unmasked; it may hold personal data or secrets.`);
    this.notice(`This reveal was recorded in the admin-action log (trace.reveal at ${revealed.revealed_at}) under your credential.`);
    this.log(safeJson(revealed.raw));
    return revealed;
  }
}
