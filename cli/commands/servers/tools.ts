// gatewayctl servers tools: the tools of a server's scans, with their classification, the rule in
// force, the proposal of a tool waiting for admission, admission state and poisoning findings.
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import { serverIdArg, serverRoute, type McpTool } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

/** matches_approved in words: null never admitted, true admitted and unchanged, false changed since. */
function admission(matches: boolean | null): string {
  if (matches === null) return 'not admitted';
  return matches ? 'admitted' : 'changed';
}

/**
 * The rule calls meet now: only an admitted, unchanged tool that the last scan still lists has one
 * (any other call is refused at admission); without a server-wide rule its calls are held.
 */
function ruleInForce(t: McpTool): string | null {
  if (!t.present || t.matches_approved !== true) return null;
  return t.policy_action ?? 'REQUIRE_APPROVAL (no rule)';
}

/** The daemon sends a proposal only for a tool waiting for admission. */
function proposal(t: McpTool): string | null {
  if (t.proposed_rule === null) return null;
  return t.proposed_rule_source === 'template' ? `${t.proposed_rule} (template)` : t.proposed_rule;
}

export default class ServersTools extends GatewayCommand {
  static override summary = "List an MCP server's tools: action, risk, rule in force, proposal, admission and findings.";
  static override description =
    'RULE is the rule calls meet now (admitted and unchanged tools only); PROPOSAL is the rule proposed for a tool waiting for admission, which decides no call.';
  static override examples = ['<%= config.bin %> servers tools SERVER_ID', '<%= config.bin %> servers tools SERVER_ID --json'];
  static override args = serverIdArg;

  async run(): Promise<{ tools: McpTool[] }> {
    const { args } = await this.parse(ServersTools);
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const result = await api.request<{ tools: McpTool[] }>('GET', serverRoute(id, 'tools'));
    if (result.tools.length === 0) {
      this.log('No tools.');
      return result;
    }
    this.log(
      table(
        ['NAME', 'ACTION', 'RISK', 'RULE', 'PROPOSAL', 'ADMISSION', 'FINDINGS'],
        result.tools.map((t) => [
          t.present ? t.name : `${t.name} (vanished)`,
          t.action,
          t.risk_level,
          ruleInForce(t),
          proposal(t),
          admission(t.matches_approved),
          t.poisoning_findings.length,
        ]),
      ),
    );
    return result;
  }
}
