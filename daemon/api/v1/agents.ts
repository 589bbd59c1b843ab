// /api/v1/agents: register (Editor), list and read (any role), update (Editor; Admin for the
// fields that widen or narrow what an agent may do), lifecycle transitions (Admin).
import { agentListQuery, agentPatchBody, agentRegisterBody, transitionBody } from '../../../shared/agent-schemas.js';
import { roleAtLeast } from '../../../shared/credentials.js';
import { GatewayError } from '../../../shared/errors.js';
import { AGENT_OPERATIONS } from '../../agents/lifecycle.js';
import { getAgent, listAgents, registerAgent, transitionAgent, updateAgent } from '../../agents/registry.js';
import { defineRoute, type Route } from '../../http/types.js';
import type { Deps } from '../../deps.js';
import { actorOf } from '../actor.js';

/** Fields whose change alters what the agent may do: only an Admin may change them. */
const ADMIN_FIELDS = ['status', 'capability_model', 'permitted_tools', 'infrastructure_permissions'] as const;

export function agentRoutes(deps: Deps): Route[] {
  const transitions: Route[] = AGENT_OPERATIONS.map((operation) =>
    defineRoute({
      method: 'POST',
      path: `/api/v1/agents/:id/${operation}`,
      summary: `${operation[0]!.toUpperCase()}${operation.slice(1)} an agent: one step of its lifecycle`,
      auth: 'admin',
      body: transitionBody,
      async handler(r) {
        return {
          status: 200,
          body: await transitionAgent(deps.sql, r.principal.projectId, r.params.id!, operation, r.body.reason ?? null, actorOf(r)),
        };
      },
    }),
  );
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/agents',
      summary: 'Register an agent',
      auth: 'editor',
      body: agentRegisterBody,
      async handler(r) {
        const { body: input } = r;
        return { status: 201, body: await registerAgent(deps.sql, r.principal.projectId, input, actorOf(r)) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/api/v1/agents',
      summary: 'List agents',
      auth: 'viewer',
      query: agentListQuery,
      async handler(r) {
        const { query: q } = r;
        return { status: 200, body: await listAgents(deps.sql, r.principal.projectId, q) };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/agents/:id',
      summary: 'Read one agent',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: await getAgent(deps.sql, r.principal.projectId, r.params.id!) };
      },
    },
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/agents/:id',
      summary: 'Update an agent',
      auth: 'editor',
      body: agentPatchBody,
      async handler(r) {
        const { body: patch } = r;
        const needsAdmin = ADMIN_FIELDS.filter((f) => patch[f] !== undefined);
        if (needsAdmin.length > 0 && !roleAtLeast(r.principal.role, 'admin')) {
          throw new GatewayError('forbidden', `Changing ${needsAdmin.join(', ')} needs the admin role.`);
        }
        return { status: 200, body: await updateAgent(deps.sql, r.principal.projectId, r.params.id!, patch, actorOf(r)) };
      },
    }),
    ...transitions,
  ];
}
