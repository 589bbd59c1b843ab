// What the admission commands (servers approve, release, verdict) share: the tool fields they read,
// TOOL=RULE flags checked with the daemon's own rule schema, a tool named by name or id, and the
// short forms a table shows. Tool names and findings come from the upstream server, so they are
// escaped before they reach a terminal.
import { verdictBody, type MCP_RULES } from '../shared/mcp-schemas.js';
import type { ApiClient } from './api-client.js';
import { UsageError } from './errors.js';
import { table } from './format.js';
import { serverRoute, type McpTool } from './server-api.js';
import { safeText } from './trace-output.js';

export type Rule = (typeof MCP_RULES)[number];

/** The rule every tool without a proposal gets when proposals are accepted: calls are held for a person. */
export const NO_PROPOSAL_RULE: Rule = 'REQUIRE_APPROVAL';

/** One entry of the body of activate and tools/release. */
export interface ReleaseEntry {
  tool_id: string;
  rule: Rule;
  fingerprint: string | null;
}

export interface Released {
  tool_id: string;
  tool_name: string;
  rule: string;
  approved_hash: string;
}

export interface Release {
  release_id: string;
  released: Released[];
}

export async function readTools(api: ApiClient, serverId: string): Promise<McpTool[]> {
  return (await api.request<{ tools: McpTool[] }>('GET', serverRoute(serverId, 'tools'))).tools;
}

/** A rule typed by the operator, checked with the schema the daemon uses for rules. */
export function checkRule(rule: string, where: string): Rule {
  const result = verdictBody.shape.action.safeParse(rule);
  if (result.success) return result.data;
  throw new UsageError(`${where}: ${result.error.issues[0]?.message ?? 'not a rule'}`);
}

/** `--rule TOOL=RULE`, repeatable: the rule is required. */
export function parseRuleOverrides(values: readonly string[], flag: string): { ref: string; rule: Rule }[] {
  return parseToolRules(values, flag, true) as { ref: string; rule: Rule }[];
}

/** `--tool TOOL[=RULE]`, repeatable: the rule is optional. */
export function parseToolRefs(values: readonly string[], flag: string): { ref: string; rule?: Rule }[] {
  return parseToolRules(values, flag, false);
}

/** Split at the last `=`, since a rule never holds one; a tool named twice is an operator mistake. */
function parseToolRules(values: readonly string[], flag: string, ruleRequired: boolean): { ref: string; rule?: Rule }[] {
  const seen = new Set<string>();
  const shape = ruleRequired ? 'TOOL=RULE' : 'TOOL[=RULE]';
  return values.map((value) => {
    const at = value.lastIndexOf('=');
    const ref = at < 0 ? value : value.slice(0, at);
    if (ref.trim() === '' || (ruleRequired && at < 0)) throw new UsageError(`${flag} ${value}: expected ${shape}`);
    if (seen.has(ref)) throw new UsageError(`${flag}: ${ref} is named more than once`);
    seen.add(ref);
    return at < 0 ? { ref } : { ref, rule: checkRule(value.slice(at + 1), `${flag} ${value}`) };
  });
}

/** A tool by id, else by name (a present tool before a vanished one of the same name). */
export function findTool(tools: readonly McpTool[], ref: string): McpTool | undefined {
  return tools.find((t) => t.id === ref) ?? tools.find((t) => t.present && t.name === ref) ?? tools.find((t) => t.name === ref);
}

/** The tool's proposal, or REQUIRE_APPROVAL where it has none. */
export function proposalOf(tool: McpTool): { rule: Rule; from: 'proposal' | 'no_proposal' } {
  return tool.proposed_rule === null
    ? { rule: NO_PROPOSAL_RULE, from: 'no_proposal' }
    : { rule: tool.proposed_rule as Rule, from: 'proposal' };
}

/** `sha256:` and the first 12 hex digits: enough to tell two states apart on screen. */
export function shortFingerprint(fingerprint: string | null | undefined): string {
  return fingerprint ? fingerprint.replace(/^(sha256:)?([0-9a-f]{12})[0-9a-f]*$/, '$2') : '-';
}

export function toolName(name: string): string {
  return safeText(name, 60);
}

/** The codes of a tool's poisoning findings, in order. */
export function findingCodes(tool: McpTool): string[] {
  return tool.poisoning_findings.map((f) => f.code);
}

/** Finding codes for a table cell, each once; '-' when there are none. */
export function findingsText(codes: readonly string[]): string {
  return codes.length === 0 ? '-' : safeText([...new Set(codes)].join(','), 60);
}

export function releasedTable(released: readonly Released[]): string {
  return table(
    ['TOOL', 'RULE', 'APPROVED STATE'],
    released.map((r) => [toolName(r.tool_name), r.rule, shortFingerprint(r.approved_hash)]),
  );
}
