// gatewayctl approvals list: the open approval requests (PENDING and unexpired), oldest first:
// prompts held by verify and tool calls held by the MCP proxy.
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import { safeText } from '../../trace-output.js';

export interface Approval {
  id: string;
  kind: 'verify' | 'mcp';
  trace_id: string | null;
  server_id: string | null;
  tool_name: string | null;
  agent_id: string | null;
  arguments_hash: string;
  status: string;
  created_at: string;
  expires_at: string;
  decided_at: string | null;
  decided_by: string | null;
  comment: string | null;
}

/** What was held: the verify trace, or the MCP server and tool. */
function subject(a: Approval): string | null {
  if (a.kind === 'verify') return a.trace_id ? `trace ${a.trace_id}` : null;
  return safeText(`${a.server_id ?? '?'}/${a.tool_name ?? '?'}`, 60);
}

export default class ApprovalsList extends GatewayCommand {
  static override summary = 'List the open approval requests (held prompts and tool calls), oldest first.';

  async run(): Promise<{ approvals: Approval[] }> {
    await this.parse(ApprovalsList);
    const result = await (await this.api()).request<{ approvals: Approval[] }>('GET', '/api/v1/approvals');
    if (result.approvals.length === 0) {
      this.log('No open approval requests.');
      return result;
    }
    this.log(table(['ID', 'KIND', 'HELD', 'AGENT', 'STATUS', 'CREATED', 'EXPIRES'], result.approvals.map((a) => [
      a.id, a.kind, subject(a), a.agent_id === null ? null : safeText(a.agent_id, 40), a.status, a.created_at, a.expires_at,
    ])));
    return result;
  }
}
