// gatewayctl approvals status: where the approval of a held verify request stands, by the trace id
// that verify printed (PENDING, APPROVED, DENIED, EXPIRED, USED or CANCELLED).
import { Flags } from '@oclif/core';
import { verifyProofBody } from '../../../shared/trace-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';
import { safeText } from '../../trace-output.js';

export interface ApprovalStatus {
  trace_id: string;
  approval_id: string;
  status: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  comment: string | null;
}

export default class ApprovalsStatus extends GatewayCommand {
  static override summary = 'Show the approval of a held verify request, by its trace id.';
  static override examples = ['<%= config.bin %> approvals status --trace-id TRACE_ID'];

  static override flags = {
    'trace-id': Flags.string({ summary: 'The trace id verify printed for the held (PENDING_APPROVAL) request.', required: true }),
  };

  async run(): Promise<ApprovalStatus> {
    const { flags } = await this.parse(ApprovalsStatus);
    const { trace_id: traceId } = checkBody(verifyProofBody, { trace_id: flags['trace-id'] }, { trace_id: '--trace-id' });
    const state = await (await this.api()).request<ApprovalStatus>(
      'GET',
      `/api/v1/approvals/status?${new URLSearchParams({ trace_id: traceId })}`,
    );
    this.log(
      keyValues({
        trace_id: state.trace_id,
        approval_id: state.approval_id,
        status: state.status,
        expires_at: state.expires_at,
        decided_at: state.decided_at,
        decided_by: state.decided_by === null ? null : safeText(state.decided_by),
        comment: state.comment === null ? null : safeText(state.comment),
      }),
    );
    return state;
  }
}
