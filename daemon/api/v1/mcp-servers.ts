// /api/v1/mcp/servers: the registry (reads any role; register, update and scan Editor; a stdio
// server's registration, delete, pause and reject Admin) and each server's tools.
import { serverPatchBody, serverRegisterBody, verdictBody } from '../../../shared/mcp-schemas.js';
import { activateServer, releaseTools, setVerdict } from '../../mcp/servers/server-admission.js';
import { defineRoute, type Route } from '../../http/types.js';
import { scanMcpServer } from '../../mcp/scan/scan-server.js';
import { deleteServer, pauseServer, registerServer, rejectServer, updateServer } from '../../mcp/servers/registry.js';
import { getServerRow, listServers, presentServer } from '../../mcp/servers/server-rows.js';
import { listTools } from '../../mcp/servers/tools.js';
import { withProxyUrl } from '../../mcp/servers/proxy-url.js';
import { addressWarning } from '../../mcp/servers/address-warning.js';
import type { StdioServers } from '../../mcp/stdio/stdio-servers.js';
import { checkStdioRegistration, withProcessState } from '../../mcp/servers/stdio-admission.js';
import type { Deps } from '../../deps.js';
import { actorOf } from '../actor.js';

export function mcpServerRoutes(deps: Deps, stdio: StdioServers): Route[] {
  /** A server record as the API returns it: with its proxy_url, and a stdio server's sandbox and process state. */
  const record = <T extends { id: string; transport?: string }>(item: T) => withProxyUrl(deps.publicUrl(), withProcessState(stdio, item));
  return [
    {
      method: 'GET',
      path: '/api/v1/mcp/servers',
      summary: 'List MCP servers',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: { servers: (await listServers(deps.sql, r.principal.projectId)).map(record) } };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/mcp/servers',
      summary: 'Register an MCP server',
      auth: 'editor',
      body: serverRegisterBody,
      async handler(r) {
        if (r.body.transport === 'stdio') checkStdioRegistration(stdio, r.principal, r.body);
        const registered = record(await registerServer(deps.sql, deps.secretBox, r.principal.projectId, r.body, actorOf(r)));
        if (r.body.transport === 'stdio') return { status: 201, body: registered };
        // A warning, not a refusal: the allow-list may change before the scan, which checks again.
        const warning = await addressWarning(registered.server_url, deps.config.upstreamAllow);
        return { status: 201, body: warning ? { ...registered, warnings: [warning] } : registered };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/mcp/servers/:id',
      summary: 'Read one MCP server',
      auth: 'viewer',
      async handler(r) {
        return { status: 200, body: record(presentServer(await getServerRow(deps.sql, r.principal.projectId, r.params.id!))) };
      },
    },
    defineRoute({
      method: 'PATCH',
      path: '/api/v1/mcp/servers/:id',
      summary: 'Update an MCP server (name, description, sign-in)',
      auth: 'editor',
      body: serverPatchBody,
      async handler(r) {
        const { body } = r;
        return {
          status: 200,
          body: record(await updateServer(deps.sql, deps.secretBox, r.principal.projectId, r.params.id!, body, actorOf(r))),
        };
      },
    }),
    {
      method: 'DELETE',
      path: '/api/v1/mcp/servers/:id',
      summary: 'Delete an MCP server and its tools',
      auth: 'admin',
      async handler(r) {
        const deleted = await deleteServer(deps.sql, r.principal.projectId, r.params.id!, actorOf(r));
        await stdio.stopServer(deleted.id);
        return { status: 200, body: deleted };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/mcp/servers/:id/pause',
      summary: 'Pause an ACTIVE MCP server',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: record(await pauseServer(deps.sql, r.principal.projectId, r.params.id!, actorOf(r))) };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/mcp/servers/:id/reject',
      summary: 'Reject a pending MCP server',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: await rejectServer(deps.sql, r.principal.projectId, r.params.id!, actorOf(r)) };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/mcp/servers/:id/scan',
      summary: 'Scan an MCP server: its tools, classification and poisoning checks',
      auth: 'editor',
      async handler(r) {
        const reply = await scanMcpServer(
          {
            sql: deps.sql,
            box: deps.secretBox,
            dispatcher: deps.upstream,
            timeoutMs: deps.config.upstreamTimeoutMs,
            idleTimeoutMs: deps.config.upstreamIdleTimeoutMs,
            scanTimeoutMs: deps.config.scanTimeoutMs,
            responseLimitBytes: deps.config.upstreamResponseLimitBytes,
            stdio,
          },
          r.principal.projectId,
          r.params.id!,
        );
        return { status: 200, body: reply };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/mcp/servers/:id/activate',
      summary: 'Approve a server with its tools, or resume a paused one',
      auth: 'admin',
      async handler(r) {
        const reply = await activateServer(deps.sql, r.principal.projectId, r.params.id!, r.body, actorOf(r));
        // A resumed server answers its record; an approval answers its release (no record).
        return { status: 200, body: 'server_url' in reply ? record(reply) : reply };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/mcp/servers/:id/tools/release',
      summary: 'Admit new or changed tools of an ACTIVE server',
      auth: 'admin',
      async handler(r) {
        return { status: 200, body: await releaseTools(deps.sql, r.principal.projectId, r.params.id!, r.body, actorOf(r)) };
      },
    },
    defineRoute({
      method: 'POST',
      path: '/api/v1/mcp/servers/:id/tools/:tool_id/verdict',
      summary: 'Set the server-wide rule of one tool',
      auth: 'admin',
      body: verdictBody,
      async handler(r) {
        const { body } = r;
        return {
          status: 200,
          body: await setVerdict(
            deps.sql,
            r.principal.projectId,
            r.params.id!,
            r.params.tool_id!,
            body.action,
            body.reason ?? null,
            actorOf(r),
          ),
        };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/mcp/servers/:id/tools',
      summary: 'List the tools of an MCP server',
      auth: 'viewer',
      async handler(r) {
        const server = await getServerRow(deps.sql, r.principal.projectId, r.params.id!);
        return { status: 200, body: { tools: await listTools(deps.sql, server.id) } };
      },
    },
  ];
}
