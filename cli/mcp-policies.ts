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
}

export const MCP_POLICIES_ROUTE = '/api/v1/mcp/policies';

export function mcpPolicyTable(policies: readonly McpPolicy[]): string {
  return table(
    ['ID', 'ACTION', 'TOOL', 'AGENT', 'SERVER', 'AUTO', 'CREATED BY', 'REASON'],
    policies.map((p) => [
      p.id,
      p.action,
      p.mcp_tool_id,
      p.agent_id === null ? null : safeText(p.agent_id, 40),
      p.server_id,
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
