// gatewayctl servers release: admits new or changed tools of an ACTIVE server (POST
// /mcp/servers/{id}/tools/release, Admin user token), each with the fingerprint just read from the
// tools list, so that a tool changing meanwhile is refused (mcp_release_surface_changed) rather
// than admitted unseen. Refusals (not active, already admitted, unknown tool) are the daemon's.
import { Flags } from '@oclif/core';
import {
  NO_PROPOSAL_RULE,
  findTool,
  parseToolRefs,
  proposalOf,
  readTools,
  releasedTable,
  toolName,
  type Release,
  type ReleaseEntry,
  type Rule,
} from '../../tool-admission.js';
import { GatewayCommand } from '../../base-command.js';
import { UsageError } from '../../errors.js';
import { serverIdArg, serverRoute, type McpTool } from '../../server-api.js';
import { resolveServer } from '../../name-or-id.js';

export default class ServersRelease extends GatewayCommand {
  static override summary = 'Admit new or changed tools of an ACTIVE MCP server, each with a rule.';
  static override description =
    '--tool NAME[=RULE] (repeatable; NAME or tool id) admits that tool with RULE, else with its proposal '
    + '(REQUIRE_APPROVAL where there is none). --all-changed admits every tool that is not admitted or changed since, with its '
    + "proposal; a --tool given with it sets that tool's rule. An admitted, unchanged tool is refused (mcp_release_already_released): "
    + 'change its rule with servers verdict.';

  static override examples = [
    '<%= config.bin %> servers release SERVER_ID --tool get_weather=REQUIRE_APPROVAL',
    '<%= config.bin %> servers release SERVER_ID --tool search --tool delete_file=DENY',
    '<%= config.bin %> servers release SERVER_ID --all-changed',
  ];

  static override args = serverIdArg;

  static override flags = {
    tool: Flags.string({
      summary: 'NAME[=RULE]: admit this tool, with RULE or its proposal; repeatable.',
      multiple: true,
      multipleNonGreedy: true,
    }),
    'all-changed': Flags.boolean({ summary: 'Admit every tool not admitted or changed since, with its proposal.' }),
  };

  async run(): Promise<Release> {
    const { args, flags } = await this.parse(ServersRelease);
    const named = parseToolRefs(flags.tool ?? [], '--tool');
    if (named.length === 0 && !flags['all-changed'])
      throw new UsageError('nothing to release: give --tool NAME[=RULE] (repeatable) or --all-changed');
    const api = await this.api();
    const { id } = await resolveServer(api, args.id, this.config.bin);
    const tools = await readTools(api, id);
    const entries = releaseEntries(tools, named, flags['all-changed']);
    if (entries.length === 0) this.notice(`No tool of MCP server ${id} is new or changed.`);
    const release = await api.request<Release>('POST', serverRoute(id, 'tools/release'), { tools: entries });
    this.log(`Released ${release.released.length} tools of MCP server ${id} (release ${release.release_id}).`);
    if (release.released.length > 0) this.log(releasedTable(release.released));
    return release;
  }
}

/**
 * One entry per tool: --all-changed's first (present tools not admitted or changed, with their
 * proposals), then each --tool replacing or adding its own. A --tool naming no tool is sent as
 * given, for the daemon to refuse (mcp_release_tool_unknown).
 */
function releaseEntries(tools: readonly McpTool[], named: readonly { ref: string; rule?: Rule }[], allChanged: boolean): ReleaseEntry[] {
  const byId = new Map<string, ReleaseEntry>();
  if (allChanged) {
    for (const t of tools.filter((x) => x.present && x.matches_approved !== true)) {
      byId.set(t.id, { tool_id: t.id, rule: proposalOf(t).rule, fingerprint: t.current_fingerprint });
    }
  }
  const strays: ReleaseEntry[] = [];
  const seen = new Set<string>();
  for (const { ref, rule } of named) {
    const tool = findTool(tools, ref);
    if (!tool) {
      strays.push({ tool_id: ref, rule: rule ?? NO_PROPOSAL_RULE, fingerprint: null });
      continue;
    }
    if (seen.has(tool.id)) throw new UsageError(`--tool: ${toolName(tool.name)} is named more than once (by name and by id)`);
    seen.add(tool.id);
    byId.set(tool.id, { tool_id: tool.id, rule: rule ?? proposalOf(tool).rule, fingerprint: tool.current_fingerprint });
  }
  return [...byId.values(), ...strays];
}
