// gatewayctl servers verdict: sets a tool's server-wide rule (POST
// /mcp/servers/{id}/tools/{tool_id}/verdict, Admin), replacing its existing server-wide rules. It
// never admits a tool nor withdraws an admission. The tool may be named by name or by id.
import { Args, Flags } from '@oclif/core';
import { verdictBody } from '../../../shared/mcp-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { findTool, readTools, toolName } from '../../tool-admission.js';
import { GatewayCommand } from '../../base-command.js';
import { serverRoute } from '../../server-api.js';
import { safeText } from '../../trace-output.js';
import { resolveServer } from '../../name-or-id.js';

interface Verdict {
  tool_id: string;
  tool_name: string;
  policy_action: string;
  reason: string | null;
}

export default class ServersVerdict extends GatewayCommand {
  static override summary = "Set a tool's server-wide rule (ALLOW, LOG_ONLY, REQUIRE_APPROVAL or DENY); admission is unchanged.";
  static override examples = [
    '<%= config.bin %> servers verdict SERVER_ID delete_file --action DENY --reason "not needed"',
    '<%= config.bin %> servers verdict SERVER_ID TOOL_ID --action ALLOW --json',
  ];

  static override args = {
    id: Args.string({ description: 'ID of the MCP server (see servers list).', required: true }),
    tool: Args.string({ description: 'Name or ID of the tool (see servers tools).', required: true }),
  };

  static override flags = {
    action: Flags.string({ summary: 'The rule: ALLOW, LOG_ONLY, REQUIRE_APPROVAL or DENY.', required: true }),
    reason: Flags.string({ summary: 'Why, recorded with the rule and in its trace.' }),
  };

  async run(): Promise<Verdict> {
    const { args, flags } = await this.parse(ServersVerdict);
    const body = checkBody(
      verdictBody,
      flags.reason === undefined ? { action: flags.action } : { action: flags.action, reason: flags.reason },
    );
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    // A name no tool has is sent as an id: the daemon answers not_found in its own words.
    const toolId = findTool(await readTools(api, id), args.tool)?.id ?? args.tool;
    const verdict = await api.request<Verdict>('POST', `${serverRoute(id, 'tools')}/${encodeURIComponent(toolId)}/verdict`, body);
    const why = verdict.reason === null ? '' : ` (${safeText(verdict.reason, 200)})`;
    this.log(
      `Set the server-wide rule of ${toolName(verdict.tool_name)} (${verdict.tool_id}) on MCP server ${id} to ${verdict.policy_action}${why}; admission unchanged.`,
    );
    return verdict;
  }
}
