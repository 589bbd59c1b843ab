// What the policies mcp commands share: an MCP rule as /api/v1/mcp/policies returns it, and how a
// person sees one (a table row, a line). Reasons are free text, so they are escaped.
import { table } from './format.js';
import { safeText } from './trace-output.js';

export interface McpPolicy {
  id: string;
  action: string;
  mcp_tool_id: string | null;
  agent_id: string | null;
  server_id: string | null;
  reason: string | null;
  conditions: unknown;
  is_auto_generated: boolean;
  created_by: string | null;
  created_at: string;
  /** Names beside the ids (the list answers them; a created or deleted rule's answer does not). */
  tool_name?: string | null;
  server_name?: string | null;
  agent_name?: string | null;
}

/** "name (id)", or the id alone when the name is unknown. */
function named(name: string | null | undefined, id: string | null, max = 40): string | null {
  if (id === null) return null;
  return name ? safeText(`${name} (${id})`, max) : safeText(id, max);
}

export const MCP_POLICIES_ROUTE = '/api/v1/mcp/policies';

export function mcpPolicyTable(policies: readonly McpPolicy[]): string {
  return table(
    ['ID', 'ACTION', 'TOOL', 'AGENT', 'SERVER', 'AUTO', 'CREATED BY', 'REASON'],
    policies.map((p) => [
      p.id,
      p.action,
      named(p.tool_name, p.mcp_tool_id),
      named(p.agent_name, p.agent_id),
      named(p.server_name, p.server_id),
      p.is_auto_generated ? 'yes' : 'no',
      p.created_by === null ? null : safeText(p.created_by, 40),
      p.reason === null ? null : safeText(p.reason, 60),
    ]),
  );
}

/** One line naming a rule: id, action and what it applies to. */
export function mcpPolicyLine(p: McpPolicy): string {
  const scope = [
    p.mcp_tool_id === null ? 'every tool' : `tool ${p.mcp_tool_id}`,
    p.agent_id === null ? 'every agent' : `agent ${safeText(p.agent_id)}`,
  ];
  return `${p.id} (${p.action} for ${scope.join(', ')})`;
}
