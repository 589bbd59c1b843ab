// gatewayctl traces action: records a reviewer action on a trace (WARN_PROCEEDED, or JUSTIFIED
// with a justification); the daemon keeps every one and logs it in the admin-action log.
import { Args, Flags } from '@oclif/core';
import { traceActionBody } from '../../../shared/trace-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { safeText } from '../../trace-output.js';

export interface ReviewerAction {
  id: string;
  trace_id: string;
  action: string;
  justification: string | null;
  actor_id: string;
  created_at: string;
}

export default class TracesAction extends GatewayCommand {
  static override summary = 'Record a reviewer action on a trace: WARN_PROCEEDED, or JUSTIFIED with a justification.';
  static override examples = [
    '<%= config.bin %> traces action ID --action WARN_PROCEEDED',
    '<%= config.bin %> traces action ID --action JUSTIFIED --justification "needed for the quarterly report"',
  ];

  static override args = {
    id: Args.string({ description: 'ID of the trace (see traces list).', required: true }),
  };

  static override flags = {
    action: Flags.string({ summary: 'The reviewer action.', options: [...traceActionBody.shape.action.options], required: true }),
    justification: Flags.string({ summary: 'Why (at least 10 characters for JUSTIFIED).' }),
  };

  async run(): Promise<ReviewerAction> {
    const { args, flags } = await this.parse(TracesAction);
    const body = checkBody(
      traceActionBody,
      flags.justification === undefined ? { action: flags.action } : { action: flags.action, justification: flags.justification },
    );
    const route = `/api/v1/traces/${encodeURIComponent(args.id)}/action`;
    const done = await (await this.api()).request<ReviewerAction>('POST', route, body);
    this.log(`Recorded ${done.action} on trace ${done.trace_id} by ${safeText(done.actor_id)} at ${done.created_at} (action ${done.id}).`);
    return done;
  }
}
