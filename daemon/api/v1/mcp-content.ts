// /api/v1/mcp/content-policies: what the MCP proxy's content detectors do with what goes into a
// tool and what comes back (daemon/mcp/content/). Reads any role, writes Admin. The list carries
// the built-in defaults beside the project's own policies, so a reader sees what is in force.
import { CONTENT_DEFAULTS, contentPolicyCreateBody, contentPolicyPatchBody } from '../../../shared/mcp-content-schemas.js';
import type { Deps } from '../../deps.js';
import { defineRoute, type Route } from '../../http/types.js';
import { createContentPolicy, deleteContentPolicy, listContentPolicies, updateContentPolicy } from '../../mcp/content/content-policies.js';
import { actorOf } from '../actor.js';

const ROUTE = '/api/v1/mcp/content-policies';

export function mcpContentRoutes(deps: Deps): Route[] {
  return [
    {
      method: 'GET',
      path: ROUTE,
      summary: 'List content policies and their defaults',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: { defaults: CONTENT_DEFAULTS, policies: await listContentPolicies(deps.sql, r.principal.projectId) } };
      },
    },
    defineRoute({
      method: 'POST',
      path: ROUTE,
      summary: 'Create a content policy',
      auth: 'admin',
      body: contentPolicyCreateBody,
      async handler(r) {
        const { body } = r;
        return { status: 201, body: await createContentPolicy(deps.sql, r.principal.projectId, body, actorOf(r)) };
      },
    }),
    defineRoute({
      method: 'PATCH',
      path: `${ROUTE}/:id`,
      summary: 'Change a content policy',
      auth: 'admin',
      body: contentPolicyPatchBody,
      async handler(r) {
        const { body } = r;
        return { status: 200, body: await updateContentPolicy(deps.sql, r.principal.projectId, r.params.id!, body, actorOf(r)) };
      },
    }),
    {
      method: 'DELETE',
      path: `${ROUTE}/:id`,
      summary: 'Remove a content policy',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: await deleteContentPolicy(deps.sql, r.principal.projectId, r.params.id!, actorOf(r)) };
      },
    },
  ];
}
