// gatewayctl traces get: one trace's full record (payloads, proof fields, the latest reviewer
// action), whatever its age or environment.
import { Args } from '@oclif/core';
import { traceListQuery } from '../../../shared/trace-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { recordLines, TraceNotFound, type Trace, type TracePage } from '../../trace-output.js';

export default class TracesGet extends GatewayCommand {
  static override summary = "Show a trace's full record: content shown, payloads, reviewer action and hash-chain proof.";
  static override examples = ['<%= config.bin %> traces get TRACE_ID', '<%= config.bin %> traces get TRACE_ID --json'];
  static override args = {
    id: Args.string({ description: 'ID of the trace (see traces list).', required: true }),
  };

  async run(): Promise<Trace> {
    const { args } = await this.parse(TracesGet);
    const { id } = checkBody(traceListQuery.pick({ id: true }).required(), { id: args.id }, { id: 'ID' });
    const page = await (await this.api()).request<TracePage>('GET', `/api/v1/traces?${new URLSearchParams({ id })}`);
    const trace = page.traces[0];
    if (!trace) throw new TraceNotFound(id);
    this.log(recordLines(trace));
    return trace;
  }
}
