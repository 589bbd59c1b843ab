// gatewayctl approvals get: one approval request in full: what is held, the agent, the arguments as
// the trace keeps them (display-safe: masked), what the content policies found in them (types and
// paths), its state, and the command that decides it.
import { Args } from '@oclif/core';
import { agentLabel, heldSubject, timeLeft, type Approval } from '../../approvals.js';
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';
import { safeJson, safeText } from '../../trace-output.js';

export default class ApprovalsGet extends GatewayCommand {
  static override summary = 'Show one approval request: the held call, its arguments (masked), findings, state.';
  static override examples = ['<%= config.bin %> approvals get APPROVAL_ID', '<%= config.bin %> approvals get APPROVAL_ID --json'];
  static override args = {
    id: Args.string({ description: 'ID of the approval request (see approvals list).', required: true }),
  };

  async run(): Promise<Approval> {
    const { args } = await this.parse(ApprovalsGet);
    const a = await (await this.api()).request<Approval>('GET', `/api/v1/approvals/${encodeURIComponent(args.id)}`);
    const open = a.status === 'PENDING';
    this.log(
      keyValues({
        id: a.id,
        held: heldSubject(a),
        agent: agentLabel(a),
        key: a.credential_id,
        status: a.status,
        created: a.created_at,
        expires: open ? `${a.expires_at} (${timeLeft(a)} left)` : a.expires_at,
        decided:
          a.decided_at === null
            ? null
            : `${a.decided_at} by ${safeText(a.decided_by ?? '?', 60)}${a.comment ? `: ${safeText(a.comment, 200)}` : ''}`,
        arguments_hash: a.arguments_hash,
        findings:
          a.findings.length === 0 ? 'none' : a.findings.map((f) => `${f.entity} (${f.detector}) in ${safeText(f.path, 80)}`).join('; '),
        trace: a.trace_id,
      }),
    );
    if (a.arguments !== null && a.arguments !== undefined) this.log(`arguments (masked):\n${safeJson(a.arguments)}`);
    if (open) this.log(`decide: gatewayctl approvals decide ${a.id} --approve | --deny [--comment C]`);
    return a;
  }
}
