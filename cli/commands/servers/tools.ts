// gatewayctl servers tools: the tools of a server's scans, with their classification, proposed
// rule, admission state and poisoning findings.
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import { serverIdArg, serverRoute, type McpTool } from '../../server-api.js';

/** matches_approved in words: null never admitted, true admitted and unchanged, false changed since. */
function admission(matches: boolean | null): string {
  if (matches === null) return 'not admitted';
  return matches ? 'admitted' : 'changed';
}

export default class ServersTools extends GatewayCommand {
  static override summary = 'List an MCP server\'s tools: action, risk, proposed rule, admission and findings.';
  static override examples = ['<%= config.bin %> servers tools SERVER_ID', '<%= config.bin %> servers tools SERVER_ID --json'];
  static override args = serverIdArg;

  async run(): Promise<{ tools: McpTool[] }> {
    const { args } = await this.parse(ServersTools);
    const result = await (await this.api()).request<{ tools: McpTool[] }>('GET', serverRoute(args.id, 'tools'));
    if (result.tools.length === 0) {
      this.log('No tools.');
      return result;
    }
    this.log(table(['NAME', 'ACTION', 'RISK', 'PROPOSED RULE', 'ADMISSION', 'FINDINGS'], result.tools.map((t) => [
      t.present ? t.name : `${t.name} (vanished)`, t.action, t.risk_level,
      t.proposed_rule && t.proposed_rule_source === 'template' ? `${t.proposed_rule} (template)` : t.proposed_rule,
      admission(t.matches_approved), t.poisoning_findings.length,
    ])));
    return result;
  }
}
