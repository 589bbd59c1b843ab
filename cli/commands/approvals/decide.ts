// gatewayctl approvals decide: approves or denies an open approval request, once (an Admin user
// token: the daemon refuses a project key, since a person must decide). The decision is a trace.
import { Args, Flags } from '@oclif/core';
import { approvalDecideBody } from '../../../shared/verify-policy-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { safeText } from '../../trace-output.js';
import type { Approval } from '../../approvals.js';

export default class ApprovalsDecide extends GatewayCommand {
  static override summary = 'Approve or deny an open approval request (Admin user token); decided once.';
  static override examples = [
    '<%= config.bin %> approvals decide APPROVAL_ID --approve --comment "ok for the audit"',
    '<%= config.bin %> approvals decide APPROVAL_ID --deny',
  ];

  static override args = {
    id: Args.string({ description: 'ID of the approval request (see approvals list).', required: true }),
  };

  static override flags = {
    approve: Flags.boolean({ summary: 'Approve the request.', exactlyOne: ['approve', 'deny'] }),
    deny: Flags.boolean({ summary: 'Deny the request.', exactlyOne: ['approve', 'deny'] }),
    comment: Flags.string({ summary: 'Why (kept with the decision).' }),
  };

  async run(): Promise<Approval> {
    const { args, flags } = await this.parse(ApprovalsDecide);
    const body = checkBody(approvalDecideBody, {
      approved: Boolean(flags.approve),
      ...(flags.comment === undefined ? {} : { comment: flags.comment }),
    });
    const decided = await (await this.api()).request<Approval>('POST', `/api/v1/approvals/${encodeURIComponent(args.id)}/decide`, body);
    const held = decided.trace_id ? ` (trace ${decided.trace_id})` : '';
    this.log(
      `${decided.status} approval request ${decided.id}${held} by ${safeText(decided.decided_by ?? 'unknown')} at ${decided.decided_at ?? '?'}.`,
    );
    return decided;
  }
}
