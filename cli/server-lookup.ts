// An MCP server or an agent named on the command line by id or by name (connect, bridge): the id
// is tried first, then the names (case and surrounding spaces ignored, as the registry compares them).
import type { ApiClient } from './api-client.js';
import { GatewayRefusal, UsageError } from './errors.js';
import { serverRoute, type McpServer } from './server-api.js';

const nameKey = (name: string): string => name.trim().toLowerCase();

function notFound(what: string, ref: string, hint: string): GatewayRefusal {
  return new GatewayRefusal(404, 'not_found', `No ${what} with id or name "${ref}" (see ${hint}).`, undefined);
}

async function byId<T>(api: ApiClient, route: string): Promise<T | null> {
  try {
    return await api.request<T>('GET', route);
  } catch (err) {
    if (err instanceof GatewayRefusal && err.status === 404) return null;
    throw err;
  }
}

export async function resolveServer(api: ApiClient, ref: string, bin: string): Promise<McpServer> {
  if (ref.trim() === '') throw new UsageError('SERVER: an MCP server id or name');
  const direct = await byId<McpServer>(api, serverRoute(ref));
  if (direct) return direct;
  const { servers } = await api.request<{ servers: McpServer[] }>('GET', '/api/v1/mcp/servers');
  const found = servers.find((s) => nameKey(s.name) === nameKey(ref));
  if (!found) throw notFound('MCP server', ref, `${bin} servers list`);
  return found;
}

export interface AgentRef {
  id: string;
  name: string;
  status: string;
}

export async function resolveAgent(api: ApiClient, ref: string, bin: string): Promise<AgentRef> {
  if (ref.trim() === '') throw new UsageError('--agent: an agent id or name');
  const direct = await byId<AgentRef>(api, `/api/v1/agents/${encodeURIComponent(ref)}`);
  if (direct) return direct;
  const matches: AgentRef[] = [];
  let cursor: string | null = null;
  do {
    const page: { agents: AgentRef[]; next_cursor: string | null } = await api.request(
      'GET',
      `/api/v1/agents?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    matches.push(...page.agents.filter((a) => nameKey(a.name) === nameKey(ref)));
    cursor = page.next_cursor;
  } while (cursor !== null);
  if (matches.length === 0) throw notFound('agent', ref, `${bin} agents list`);
  if (matches.length > 1)
    throw new UsageError(`--agent: ${matches.length} agents are named "${ref}" (${matches.map((a) => a.id).join(', ')}); give the id`);
  return matches[0]!;
}
