// /api/v1/mcp/policies: the MCP rules for a tool, an agent or an agent on a tool (reads any role,
// adds Editor, removes Admin).
import { mcpPolicyCreateBody } from '../../../shared/mcp-schemas.js';
import type { Deps } from '../../deps.js';
import { defineRoute, type Route } from '../../http/types.js';
import { createMcpPolicy, deleteMcpPolicy, listMcpPolicies } from '../../mcp/rules/tool-rules.js';
import { actorOf } from '../actor.js';

export function mcpPolicyRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/mcp/policies',
      summary: 'List MCP rules',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: { policies: await listMcpPolicies(deps.sql, r.principal.projectId) } };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/mcp/policies',
      summary: 'Add an MCP rule for a tool, an agent or both',
      auth: 'editor',
      body: mcpPolicyCreateBody,
      async handler(r) {
        const { body } = r;
        return { status: 201, body: await createMcpPolicy(deps.sql, r.principal.projectId, body, r.principal, actorOf(r)) };
      },
    }),
    {
      method: 'DELETE',
      path: '/api/v1/mcp/policies/:id',
      summary: 'Remove an MCP rule',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: await deleteMcpPolicy(deps.sql, r.principal.projectId, r.params.id!, actorOf(r)) };
      },
    },
  ];
}
