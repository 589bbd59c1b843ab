// /api/v1/mcp/proxy/{server_id} (any role: POST a JSON-RPC message; GET the server-to-client event
// stream; DELETE a session), MCP approvals (list any role; decide Admin user token) and the
// targeted MCP stop (Admin). The proxy routes are governance routes: X-Gateway-* on every answer.
import { GatewayError } from '../../../shared/errors.js';
import { approvalDecideBody } from '../../../shared/verify-policy-schemas.js';
import { decideApproval, getApproval, listOpenOfKind } from '../../approvals/store.js';
import { defineRoute, type Route } from '../../http/types.js';
import { proxyOther, proxyPost } from '../../mcp/proxy/handler.js';
import { OutcomeRecorder } from '../../mcp/proxy/outcomes.js';
import { mcpEmergencyStop, stopBody } from '../../mcp/servers/emergency-stop.js';
import type { ProxyDeps } from '../../mcp/proxy/tool-call.js';
import type { StdioServers } from '../../mcp/stdio/stdio-servers.js';
import type { Deps } from '../../deps.js';
import { actorOf } from '../actor.js';

export interface McpProxy {
  readonly routes: Route[];
  /** Upstream outcomes of forwarded calls are written in batches; this writes what is collected. */
  readonly outcomes: OutcomeRecorder;
}

export function createMcpProxy(deps: Deps, stdio?: StdioServers): McpProxy {
  const outcomes = new OutcomeRecorder(deps.sql, deps.log.child({ subsystem: 'mcp-proxy' }));
  const proxy: ProxyDeps = { ...deps, outcomes, ...(stdio ? { stdio } : {}) };
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/api/v1/mcp/proxy/:server_id',
      summary: 'MCP proxy: send a JSON-RPC message to a server through the gateway',
      auth: 'viewer',
      governance: true,
      writesOnlyTraces: true,
      bodyMayHoldNul: true,
      handler: (r) => proxyPost(proxy, r),
    },
    {
      method: 'GET',
      path: '/api/v1/mcp/proxy/:server_id',
      summary: 'MCP proxy: the server-to-client event stream',
      auth: 'viewer',
      governance: true,
      writesOnlyTraces: true,
      handler: (r) => proxyOther(proxy, r, 'GET'),
    },
    {
      method: 'DELETE',
      path: '/api/v1/mcp/proxy/:server_id',
      summary: 'MCP proxy: end a session',
      auth: 'viewer',
      governance: true,
      writesOnlyTraces: true,
      handler: (r) => proxyOther(proxy, r, 'DELETE'),
    },
    {
      method: 'GET',
      path: '/api/v1/mcp/approvals',
      summary: 'List open MCP approval requests',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: { approvals: await listOpenOfKind(deps.sql, r.principal.projectId, 'mcp') } };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/mcp/approvals/:id/decide',
      summary: 'Approve or deny an MCP approval request',
      auth: 'admin',
      body: approvalDecideBody,
      async handler(r) {
        const { body } = r;
        const approval = await getApproval(deps.sql, r.principal.projectId, r.params.id!);
        if (approval.kind !== 'mcp') throw new GatewayError('not_found', 'No MCP approval request with this id.');
        return {
          status: 200,
          body: await decideApproval(deps.sql, r.principal.projectId, approval.id, body.approved, body.comment ?? null, actorOf(r), {
            deciderNotRequester: deps.config.approvalDeciderNotRequester,
          }),
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/mcp/emergency-stop',
      summary: 'Targeted MCP stop of one server or agent',
      auth: 'admin',
      body: stopBody,
      async handler(r) {
        return { status: 200, body: await mcpEmergencyStop(deps.sql, r.principal.projectId, r.body, actorOf(r)) };
      },
    }),
  ];
  return { routes, outcomes };
}

export function mcpProxyRoutes(deps: Deps): Route[] {
  return createMcpProxy(deps).routes;
}
