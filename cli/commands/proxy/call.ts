// gatewayctl proxy call: one tools/call through the MCP proxy, for an operator testing a rule. It is
// sent bare (the gateway opens the upstream session), so it passes every check an agent's call does
// and is recorded as a trace like one. Exit 0 on a result, 1 on a JSON-RPC error (refused or held).
import { Args, Flags } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { loadConnection } from '../../config.js';
import { EXIT, UsageError } from '../../errors.js';
import { checkAgentRef, mcpAgentId, resolveServer } from '../../name-or-id.js';
import { proxyRequest, type RpcErrorObject } from '../../proxy-rpc.js';
import { safeJson, safeText } from '../../trace-output.js';

interface CallResult {
  server_id: string;
  tool: string;
  agent_id: string | null;
  approval_id: string | null;
  result?: unknown;
  error?: RpcErrorObject;
}

// What fetch accepts as a header value and the proxy as an approval id: printable ASCII, no spaces.
const APPROVAL_ID = /^[\x21-\x7e]{1,100}$/;

function parseArgs(raw: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    throw new UsageError(`--args must be a JSON object: ${(err as Error).message}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError('--args must be a JSON object, e.g. \'{"city":"Oslo"}\'');
  return value as Record<string, unknown>;
}

export default class ProxyCall extends GatewayCommand {
  static override summary = 'Send one tools/call through the MCP proxy and print the result or the JSON-RPC error.';
  static override description =
    "The call runs the proxy's full pipeline (agent, server, admission, rule, approval, sign-in) and is "
    + "recorded as an MCP_TOOL_CALL trace. Exit 0 on a result (the tool's own isError included), 1 on a JSON-RPC error. A held call "
    + 'prints its approval id: once an Admin approved it (approvals decide ID --approve), repeat the same call with --approval-id ID.';

  static override examples = [
    '<%= config.bin %> proxy call SERVER_ID get_weather --args \'{"city":"Oslo"}\'',
    '<%= config.bin %> proxy call SERVER_ID delete_file --args \'{"path":"/tmp/x"}\' --agent-id AGENT_ID',
    '<%= config.bin %> proxy call SERVER_ID delete_file --args \'{"path":"/tmp/x"}\' --approval-id APPROVAL_ID --json',
  ];

  static override args = {
    id: Args.string({ description: 'ID or name of the MCP server (see servers list).', required: true }),
    tool: Args.string({ description: 'Name of the tool (see servers tools).', required: true }),
  };

  static override flags = {
    args: Flags.string({ summary: "The tool's arguments, a JSON object (default {})." }),
    'agent-id': Flags.string({ summary: 'Call as this agent, by id or name (sent as X-Agent-Id); without it the call is anonymous.' }),
    'approval-id': Flags.string({ summary: 'The approved request to spend (sent as X-Gateway-Approval-Id).' }),
  };

  async run(): Promise<CallResult> {
    const { args, flags } = await this.parse(ProxyCall);
    const toolArgs = parseArgs(flags.args ?? '{}');
    const agentRef = flags['agent-id'] ?? null;
    const approvalId = flags['approval-id'] ?? null;
    if (agentRef !== null) checkAgentRef(agentRef, '--agent-id');
    if (approvalId !== null && !APPROVAL_ID.test(approvalId))
      throw new UsageError('--approval-id: printable ASCII without spaces, at most 100 characters');
    const api = await this.api();
    const serverId = (await resolveServer(api, args.id, this.config.bin)).id;
    const agentId = agentRef === null ? null : await mcpAgentId(api, agentRef, '--agent-id');
    const headers: Record<string, string> = {};
    if (agentId !== null) headers['x-agent-id'] = agentId;
    if (approvalId !== null) headers['x-gateway-approval-id'] = approvalId;

    const answer = await proxyRequest(await loadConnection(), this.config.userAgent, {
      serverId: serverId,
      method: 'tools/call',
      params: { name: args.tool, arguments: toolArgs },
      headers,
    });
    const base = { server_id: serverId, tool: args.tool, agent_id: agentId, approval_id: approvalId };
    if (answer.kind === 'result') {
      this.log(`Result of ${safeText(args.tool, 100)} on MCP server ${serverId}:`);
      this.log(safeJson(answer.result));
      return { ...base, result: answer.result };
    }
    if (!this.jsonEnabled()) for (const line of describeError(answer.error, this.config.bin)) this.notice(line);
    process.exitCode = EXIT.refused;
    return { ...base, error: answer.error };
  }
}

/** The error line, then what to do about a held call. */
function describeError(error: RpcErrorObject, bin: string): string[] {
  const data = error.data ?? {};
  const reason = typeof data.reason === 'string' ? ` ${data.reason}` : '';
  const detail = typeof data.detail === 'string' ? ` (${safeText(data.detail, 300)})` : '';
  const trace = typeof data.trace_id === 'string' ? ` (trace ${data.trace_id})` : '';
  const lines = [`Error: JSON-RPC ${error.code}${reason}: ${safeText(error.message, 300)}${detail}${trace}`];
  if (typeof data.approval_rejected === 'string')
    lines.push(`The approval id presented was not usable (${data.approval_rejected}); a new request was made.`);
  if (typeof data.approval_id === 'string' && error.code === -32004) {
    lines.push(
      `Held for approval: ${data.approval_id}. An Admin approves it with \`${bin} approvals decide ${data.approval_id} --approve\`, `
        + `then repeat this call with the same arguments and --approval-id ${data.approval_id}.`,
    );
  }
  return lines;
}
