// gatewayctl policies mcp add: a rule for a tool, an agent, or an agent on one tool. Editors may
// add the tightening REQUIRE_APPROVAL and DENY, Admins also ALLOW and LOG_ONLY; an agent rule can
// only tighten, so ALLOW or LOG_ONLY with --agent is refused (mcp_agent_rule_ineffective).
import { Flags } from '@oclif/core';
import { mcpPolicyCreateBody } from '../../../../shared/mcp-schemas.js';
import { checkBody, fieldsFromFlags } from '../../../agent-flags.js';
import { GatewayCommand } from '../../../base-command.js';
import { UsageError } from '../../../errors.js';
import { MCP_POLICIES_ROUTE, mcpPolicyLine, type McpPolicy } from '../../../mcp-policies.js';
import { checkAgentRef, mcpAgentId } from '../../../name-or-id.js';

const FIELDS = { action: 'action', tool: 'mcp_tool_id', agent: 'agent_id', reason: 'reason' } as const;
const RENAMED = { mcp_tool_id: '--tool', agent_id: '--agent' };

export default class PoliciesMcpAdd extends GatewayCommand {
  static override summary = 'Add an MCP rule for a tool (--tool), an agent (--agent) or both.';
  static override aliases = ['policies:mcp:create'];
  static override examples = [
    '<%= config.bin %> policies mcp add --action DENY --agent AGENT_ID --reason contractor',
    '<%= config.bin %> policies mcp add --action REQUIRE_APPROVAL --tool TOOL_ID --agent AGENT_ID',
    '<%= config.bin %> policies mcp add --action ALLOW --tool TOOL_ID',
  ];

  static override flags = {
    action: Flags.string({ summary: 'The rule: ALLOW, LOG_ONLY, REQUIRE_APPROVAL or DENY.', required: true }),
    tool: Flags.string({ summary: 'ID of the MCP tool it applies to (see servers tools --json).' }),
    agent: Flags.string({ summary: 'The agent it applies to, by id or name.' }),
    reason: Flags.string({ summary: 'Why, recorded with the rule and in its trace.' }),
  };

  async run(): Promise<McpPolicy> {
    const { flags } = await this.parse(PoliciesMcpAdd);
    if (flags.tool === undefined && flags.agent === undefined)
      throw new UsageError('give --tool, --agent or both: a rule applies to a tool, an agent, or an agent on a tool');
    if (flags.agent !== undefined) checkAgentRef(flags.agent, '--agent');
    const api = await this.api();
    const agent = flags.agent === undefined ? undefined : await mcpAgentId(api, flags.agent, '--agent');
    const body = checkBody(mcpPolicyCreateBody, fieldsFromFlags({ ...flags, agent }, FIELDS), RENAMED);
    const created = await api.request<McpPolicy>('POST', MCP_POLICIES_ROUTE, body);
    this.log(`Added MCP rule ${mcpPolicyLine(created)}.`);
    return created;
  }
}
