// gatewayctl servers approve: shows each tool's proposal and, with --accept-proposals or --rule,
// approves the server (POST /mcp/servers/{id}/activate, Admin user token) naming every tool of the
// last scan with its rule and the fingerprint just read. Without either flag nothing is sent.
// Every refusal (scan state, a missing or changed tool, a project key) is the daemon's.
import { Flags } from '@oclif/core';
import {
  findTool,
  findingCodes,
  findingsText,
  parseRuleOverrides,
  proposalOf,
  readTools,
  shortFingerprint,
  toolName,
  type Release,
  type ReleaseEntry,
  type Rule,
} from '../../tool-admission.js';
import { GatewayCommand } from '../../base-command.js';
import { UsageError } from '../../errors.js';
import { table } from '../../format.js';
import { serverIdArg, serverRoute, type McpServer, type McpTool } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

/** One tool and the rule approving would give it; rule null: not named (the daemon will say so). */
interface PlannedTool {
  tool_id: string;
  name: string;
  action: string;
  risk_level: string;
  proposed_rule: string | null;
  proposed_rule_source: string | null;
  findings: string[];
  fingerprint: string;
  rule: Rule | null;
  rule_from: 'proposal' | 'no_proposal' | 'rule_flag' | null;
}

interface ApproveResult {
  id: string;
  status: string;
  proxy_url: string;
  sent: boolean;
  tools: PlannedTool[];
  release: Release | null;
}

const RULE_NOTE = { proposal: '', no_proposal: ' (no proposal)', rule_flag: ' (--rule)' } as const;

export default class ServersApprove extends GatewayCommand {
  static override summary = 'Show the proposed rule of each tool of a pending MCP server; approve it with --accept-proposals or --rule.';
  static override description =
    'Without --accept-proposals or --rule only the table is shown and nothing changes. --accept-proposals '
    + 'sends every proposal; a tool without one gets REQUIRE_APPROVAL (its calls are held for a person). --rule TOOL=RULE (TOOL by '
    + 'name or id, RULE one of ALLOW, LOG_ONLY, REQUIRE_APPROVAL, DENY) overrides one tool; without --accept-proposals every tool '
    + 'needs its --rule. Needs an Admin user token: a project key is refused with mcp_release_author_unresolved.';

  static override examples = [
    '<%= config.bin %> servers approve SERVER_ID',
    '<%= config.bin %> servers approve SERVER_ID --accept-proposals',
    '<%= config.bin %> servers approve SERVER_ID --accept-proposals --rule delete_file=DENY --rule get_weather=ALLOW',
  ];

  static override args = serverIdArg;

  static override flags = {
    'accept-proposals': Flags.boolean({ summary: "Approve with each tool's proposal (REQUIRE_APPROVAL where there is none)." }),
    rule: Flags.string({
      summary: 'TOOL=RULE: this rule for this tool instead of its proposal; repeatable.',
      multiple: true,
      multipleNonGreedy: true,
    }),
  };

  async run(): Promise<ApproveResult> {
    const { args, flags } = await this.parse(ServersApprove);
    const overrides = parseRuleOverrides(flags.rule ?? [], '--rule');
    const accept = flags['accept-proposals'];
    const send = accept || overrides.length > 0;
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const [server, tools] = await Promise.all([api.request<McpServer>('GET', serverRoute(id)), readTools(api, id)]);
    const { planned, strays } = plan(tools, overrides, accept || !send);

    this.log(
      `MCP server ${server.id} "${server.name}": ${server.status}, last scan ${server.scan_state}, ${planned.length} tools; proxy URL ${server.proxy_url}.`,
    );
    if (planned.length > 0) this.log(planTable(planned, send));
    if (!send) {
      this.log(nextStep(server, this.config.bin));
      return { id: server.id, status: server.status, proxy_url: server.proxy_url, sent: false, tools: planned, release: null };
    }
    const entries: ReleaseEntry[] = [
      ...planned.filter((p) => p.rule !== null).map((p) => ({ tool_id: p.tool_id, rule: p.rule!, fingerprint: p.fingerprint })),
      ...strays,
    ];
    const reply = await api.request<{ id: string; status: string; release: Release }>('POST', serverRoute(id, 'activate'), {
      tools: entries,
    });
    const { release } = reply;
    this.log(
      `Approved MCP server ${reply.id} "${server.name}": now ${reply.status}; ${release.released.length} tools admitted (release ${release.release_id}).`,
    );
    this.log(`Proxy URL: ${server.proxy_url} (${this.config.bin} connect ${server.id} configures an MCP host with it).`);
    return { id: reply.id, status: reply.status, proxy_url: server.proxy_url, sent: true, tools: planned, release };
  }
}

/**
 * The rule of each tool of the last scan (present tools: the decidable set). `--rule` entries that
 * name no such tool are sent as given (strays), for the daemon to refuse in its own words.
 */
function plan(
  tools: readonly McpTool[],
  overrides: readonly { ref: string; rule: Rule }[],
  withProposals: boolean,
): { planned: PlannedTool[]; strays: ReleaseEntry[] } {
  const chosen = new Map<string, Rule>();
  const strays: ReleaseEntry[] = [];
  for (const { ref, rule } of overrides) {
    const tool = findTool(tools, ref);
    if (tool?.present) {
      if (chosen.has(tool.id)) throw new UsageError(`--rule: ${toolName(tool.name)} is named more than once (by name and by id)`);
      chosen.set(tool.id, rule);
    } else {
      strays.push({ tool_id: tool?.id ?? ref, rule, fingerprint: tool?.current_fingerprint ?? null });
    }
  }
  const planned = tools
    .filter((t) => t.present)
    .map((t): PlannedTool => {
      const override = chosen.get(t.id);
      const proposal = withProposals ? proposalOf(t) : null;
      return {
        tool_id: t.id,
        name: t.name,
        action: t.action,
        risk_level: t.risk_level,
        proposed_rule: t.proposed_rule,
        proposed_rule_source: t.proposed_rule_source,
        findings: findingCodes(t),
        fingerprint: t.current_fingerprint,
        rule: override ?? proposal?.rule ?? null,
        rule_from: override ? 'rule_flag' : (proposal?.from ?? null),
      };
    });
  return { planned, strays };
}

function planTable(planned: readonly PlannedTool[], send: boolean): string {
  return table(
    ['TOOL', 'ACTION', 'RISK', 'PROPOSED RULE', 'SOURCE', 'FINDINGS', 'FINGERPRINT', send ? 'RULE SENT' : 'RULE IF ACCEPTED'],
    planned.map((p) => [
      toolName(p.name),
      p.action,
      p.risk_level,
      p.proposed_rule,
      p.proposed_rule_source,
      findingsText(p.findings),
      shortFingerprint(p.fingerprint),
      p.rule === null ? null : `${p.rule}${RULE_NOTE[p.rule_from!]}`,
    ]),
  );
}

function nextStep(server: McpServer, bin: string): string {
  if (server.status !== 'PENDING_APPROVAL') {
    return (
      `Nothing sent: the server is ${server.status}, and only a PENDING_APPROVAL server is approved `
      + `(${bin} servers resume for a BLOCKED one, ${bin} servers release for new or changed tools).`
    );
  }
  return (
    `Nothing sent. To approve with these rules: ${bin} servers approve ${server.id} --accept-proposals `
    + '(add --rule TOOL=RULE to change one).'
  );
}
