// The MCP proxy as the daemon serves it: a test gateway (the real route table on port 0, its
// database, credentials, roles, rate limit and trace writer) with a client for the proxy routes;
// plus an upstream SDK server that counts tools/call requests and can stream progress, and the
// steps that bring a server to ACTIVE with a rule per tool.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Test } from 'tap';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ElicitResultSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { McpProxy } from '../../daemon/api/v1/mcp-proxy.js';
import { startTestGateway, type ApiResponse, type TestGateway } from './gateway.js';
import { listen, SAMPLE_TOOLS, sessionRouter, type AuthCheck, type RunningServer, type ToolDef } from './mcp-servers.js';

export const PROXY_ENV = { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '3' };

export interface ProxyGateway {
  readonly gw: TestGateway;
  readonly url: string;
  readonly proxy: McpProxy;
  /** POST a JSON-RPC message to the proxy of `serverId`. */
  rpc(serverId: string, message: unknown, options?: { token?: string | null; headers?: Record<string, string> }): Promise<ApiResponse>;
  /** tools/call shorthand with id 1. */
  callTool(
    serverId: string,
    name: string,
    args?: Record<string, unknown>,
    options?: { token?: string | null; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
  /** Any route of the proxy module (approvals, stop). */
  call(
    method: string,
    route: string,
    options?: { token?: string | null; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiResponse>;
}

export async function startProxyGateway(t: Test, env: Record<string, string> = {}): Promise<ProxyGateway> {
  const gw = await startTestGateway(t, { env: { ...PROXY_ENV, ...env } });
  const { url } = gw;
  const proxy = gw.gateway.mcpProxy;
  // A body always goes as JSON here, whatever content-type the test's own headers name.
  const call: ProxyGateway['call'] = (method, route, options = {}) =>
    gw.api(
      method,
      route,
      options.body === undefined ? options : { ...options, headers: { ...options.headers, 'content-type': 'application/json' } },
    );
  const rpc: ProxyGateway['rpc'] = (serverId, message, options = {}) =>
    call('POST', `/api/v1/mcp/proxy/${serverId}`, { ...options, body: message });
  return {
    gw,
    url,
    proxy,
    rpc,
    call,
    callTool: (serverId, name, args, options) =>
      rpc(serverId, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, ...(args ? { arguments: args } : {}) } }, options),
  };
}

export interface CountingServer extends RunningServer {
  /** tools/call requests that reached the server. */
  calls(): number;
  /** Arguments of every tools/call, in arrival order. */
  readonly argumentsSeen: unknown[];
}

/**
 * A 2025-era SDK server (McpServer + StreamableHTTPServerTransport, stateful, SSE answers unless
 * `response: 'json'`) serving `tools` (echoing arguments); the tool `progress` sends three progress
 * notifications before it answers, the tool `ask` (with `ask: true`) asks the client (elicitation) first.
 */
export async function startCountingServer(
  t: Test,
  options: { tools?: readonly ToolDef[]; auth?: AuthCheck; response?: 'json' | 'sse'; stateless?: boolean; ask?: boolean } = {},
): Promise<CountingServer> {
  const tools = options.tools ?? [
    ...SAMPLE_TOOLS,
    { name: 'progress', description: 'Counts to three.', inputSchema: { type: 'object' } },
    ...(options.ask ? [{ name: 'ask', description: 'Asks the user.', inputSchema: { type: 'object' } }] : []),
  ];
  const argumentsSeen: unknown[] = [];
  const build = (): McpServer => {
    const mcp = new McpServer({ name: 'counting', version: '1.0.0' });
    mcp.server.registerCapabilities({ tools: {} });
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools as never }));
    mcp.server.setRequestHandler(CallToolRequestSchema, async (req, extra) => {
      argumentsSeen.push(req.params.arguments);
      const token = req.params._meta?.progressToken;
      if (req.params.name === 'progress' && token !== undefined) {
        for (let i = 1; i <= 3; i += 1) {
          await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: i, total: 3 } });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
      if (req.params.name === 'ask') {
        const answer = await extra.sendRequest(
          {
            method: 'elicitation/create',
            params: { message: 'Proceed?', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } } },
          },
          ElicitResultSchema,
        );
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      }
      return { content: [{ type: 'text', text: JSON.stringify(req.params.arguments ?? {}) }] };
    });
    return mcp;
  };
  const route = sessionRouter(t, build, options);
  const running = await listen(t, async (req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) => {
    if (options.auth) {
      const check = options.auth;
      const ok =
        'bearer' in check
          ? req.headers.authorization === `Bearer ${check.bearer}`
          : req.headers[check.header.name.toLowerCase()] === check.header.value;
      if (!ok) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end('{"error":"invalid_token"}');
        return;
      }
    }
    await route(req, res, body);
  });
  return { ...running, argumentsSeen, calls: () => running.seen.filter((s) => s.rpcMethod === 'tools/call').length };
}

export interface ActiveServer {
  readonly id: string;
  readonly name: string;
  /** Tool ids by name. */
  readonly tools: Record<string, string>;
}

/**
 * Registers `upstreamUrl`, sets its sign-in, scans it and approves it with `rules` (tool name ->
 * rule; a tool missing from `rules` is admitted with REQUIRE_APPROVAL and its rule then removed,
 * so it has no rule at all when `noRule` names it).
 */
export async function activeServer(
  px: ProxyGateway,
  upstreamUrl: string,
  rules: Record<string, string>,
  options: { auth?: Record<string, unknown>; noRule?: string[]; name?: string } = {},
): Promise<ActiveServer> {
  const { gw } = px;
  const reg = await gw.api('POST', '/api/v1/mcp/servers', {
    body: { name: options.name ?? `s-${randomUUID().slice(0, 8)}`, server_url: upstreamUrl },
  });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${reg.text}`);
  const id = reg.body.id as string;
  if (options.auth) await gw.api('PATCH', `/api/v1/mcp/servers/${id}`, { body: options.auth });
  const scan = await gw.api('POST', `/api/v1/mcp/servers/${id}/scan`);
  if (scan.body?.scanned !== true) throw new Error(`scan: ${scan.status} ${scan.text}`);
  const list = (await gw.api('GET', `/api/v1/mcp/servers/${id}/tools`)).body.tools as {
    id: string;
    name: string;
    current_fingerprint: string;
  }[];
  const admin = await gw.key('admin', 'releaser');
  const body = {
    tools: list.map((x) => ({ tool_id: x.id, rule: rules[x.name] ?? 'REQUIRE_APPROVAL', fingerprint: x.current_fingerprint })),
  };
  const act = await gw.api('POST', `/api/v1/mcp/servers/${id}/activate`, { body, token: admin });
  if (act.status !== 200) throw new Error(`activate: ${act.status} ${act.text}`);
  const tools = Object.fromEntries(list.map((x) => [x.name, x.id]));
  for (const name of options.noRule ?? []) await gw.db`delete from mcp_policies where mcp_tool_id = ${tools[name]!}`;
  return { id, name: reg.body.name as string, tools };
}

/** Registers an agent with `profile` and brings it to ACTIVE. */
export async function activeAgent(gw: TestGateway, profile: 'safe' | 'balanced' | 'full_access' = 'full_access'): Promise<string> {
  const created = await gw.api('POST', '/api/v1/agents', {
    body: { name: `agent-${randomUUID().slice(0, 6)}`, protection_profile: profile },
  });
  if (created.status !== 201) throw new Error(`agent: ${created.status} ${created.text}`);
  await gw.api('POST', `/api/v1/agents/${created.body.id}/approve`);
  return created.body.id as string;
}

export interface CallTrace {
  id: string;
  decision: string;
  agent_id: string | null;
  environment: string;
  reason: string;
  // biome-ignore lint/suspicious/noExplicitAny: the stored trace content, read by path in tests
  body: Record<string, any>;
}

/** MCP_TOOL_CALL traces with their content, oldest first. */
export async function callTraces(gw: TestGateway): Promise<CallTrace[]> {
  return gw.db`
    select t.id::text as id, t.decision, t.agent_id, t.environment, t.reason, c.body
    from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_TOOL_CALL' order by t.sequence_num` as never;
}
