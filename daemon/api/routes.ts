// Every route of the daemon in one table: method, path, minimum role, stop and rate-limit flags.
// Reading this file answers "who may call what".
import type { AnchorService } from '../anchor/service.js';
import type { ApprovalEventStreams } from '../approvals/event-stream.js';
import type { StdioServers } from '../mcp/stdio/stdio-servers.js';
import type { Route } from '../http/types.js';
import type { Deps } from '../deps.js';
import { consoleRoutes } from './console.js';
import { consoleOidcRoutes } from './console-oidc.js';
import { adminLogRoutes } from './v1/admin-log.js';
import { agentRoutes } from './v1/agents.js';
import { anchorRoutes } from './v1/anchor.js';
import { approvalRoutes } from './v1/approvals.js';
import { commandCenterRoutes } from './v1/command-center.js';
import { credentialRoutes } from './v1/credentials.js';
import { protectedResourceRoutes } from './v1/protected-resource.js';
import { healthRoutes } from './v1/health.js';
import { ledgerRoutes } from './v1/ledger.js';
import { mcpCatalogRoutes } from './v1/mcp-catalog.js';
import { mcpContentRoutes } from './v1/mcp-content.js';
import { mcpPolicyRoutes } from './v1/mcp-policies.js';
import type { McpProxy } from './v1/mcp-proxy.js';
import { mcpServerRoutes } from './v1/mcp-servers.js';
import { notificationRoutes } from './v1/notifications.js';
import { projectRoutes } from './v1/project.js';
import { traceRoutes } from './v1/traces.js';
import { verifyProofRoutes } from './v1/verify-proof.js';
import { verifyRoutes } from './v1/verify.js';
import { webhookRoutes } from './v1/webhooks.js';
import { openApiRoute } from './openapi.js';

/**
 * `mcpProxy` is made by app.ts, which also flushes its batched call outcomes at shutdown; `anchor`
 * too (app.ts starts and stops its worker), `stdio` (the daemon's stdio server processes) and
 * `approvalEvents` (the approvals event streams, ended at shutdown).
 */
export function allRoutes(
  deps: Deps,
  mcpProxy: McpProxy,
  anchor: AnchorService,
  stdio: StdioServers,
  approvalEvents: ApprovalEventStreams,
): Route[] {
  const routes: Route[] = [
    ...healthRoutes(deps, anchor),
    ...protectedResourceRoutes(deps),
    ...credentialRoutes(deps),
    ...projectRoutes(deps),
    ...ledgerRoutes(deps),
    ...verifyProofRoutes(deps),
    ...adminLogRoutes(deps),
    ...anchorRoutes(deps, anchor),
    ...agentRoutes(deps),
    ...traceRoutes(deps),
    ...verifyRoutes(deps),
    ...approvalRoutes(deps, approvalEvents),
    ...mcpServerRoutes(deps, stdio),
    ...mcpPolicyRoutes(deps),
    ...mcpContentRoutes(deps),
    ...mcpCatalogRoutes(deps),
    ...mcpProxy.routes,
    ...commandCenterRoutes(deps),
    ...webhookRoutes(deps),
    ...notificationRoutes(deps),
    ...consoleRoutes(deps),
    ...consoleOidcRoutes(deps),
  ];
  return [...routes, openApiRoute(routes)];
}
