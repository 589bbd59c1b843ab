// gatewayctl approvals list: the open approval requests (PENDING and unexpired), oldest first:
// prompts held by verify and tool calls held by the MCP proxy, each with the tool and server by
// name, the agent, the id of the key that made the call, a one-line summary of the arguments (as the trace keeps them: masked) and the
// time left. `approvals get ID` shows one in full.
import { agentLabel, argumentSummary, heldSubject, timeLeft, type Approval } from '../../approvals.js';
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';

export default class ApprovalsList extends GatewayCommand {
  static override summary = 'List the open approval requests (held prompts and tool calls), oldest first.';
  static override examples = ['<%= config.bin %> approvals list', '<%= config.bin %> approvals list --json'];

  async run(): Promise<{ approvals: Approval[] }> {
    await this.parse(ApprovalsList);
    const result = await (await this.api()).request<{ approvals: Approval[] }>('GET', '/api/v1/approvals');
    if (result.approvals.length === 0) {
      this.log('No open approval requests.');
      return result;
    }
    const now = Date.now();
    this.log(
      table(
        ['ID', 'HELD', 'AGENT', 'KEY', 'ARGUMENTS', 'FINDINGS', 'TIME LEFT'],
        result.approvals.map((a) => [
          a.id,
          heldSubject(a),
          agentLabel(a),
          a.credential_id,
          argumentSummary(a),
          a.findings.length === 0 ? null : [...new Set(a.findings.map((f) => f.entity))].join(','),
          timeLeft(a, now),
        ]),
      ),
    );
    return result;
  }
}
