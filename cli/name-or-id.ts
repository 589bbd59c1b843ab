// An MCP server, an agent, a key or an extension named on the command line, the same way for every
// command that takes one: by its id, or by a name only it carries. The id is tried first; then the
// names (case and surrounding spaces ignored, as the registry compares them); a name that several
// carry is refused with their ids. One listing per kind, which agent-names.ts reads too.
import type { ApiClient } from './api-client.js';
import { GatewayRefusal, UsageError } from './errors.js';
import { serverRoute, type McpServer } from './server-api.js';

export interface Named {
  id: string;
  name: string;
}

export interface AgentRef extends Named {
  status: string;
}

/** What a kind of record needs to be found by id or name. */
export interface RefKind<T extends Named> {
  /** What it is, in a message: "MCP server", and with its article: "an MCP server". */
  readonly what: string;
  readonly a: string;
  /** The command that lists them, after the binary's name. */
  readonly listCommand: string;
  /** The route of one by id; null when the API has none (then the listing is searched for the id). */
  readonly byId: ((id: string) => string) | null;
  list(api: ApiClient): Promise<T[]>;
}

export const SERVERS: RefKind<McpServer> = {
  what: 'MCP server',
  a: 'an MCP server',
  listCommand: 'servers list',
  byId: (id) => serverRoute(id),
  list: async (api) => (await api.request<{ servers: McpServer[] }>('GET', '/api/v1/mcp/servers')).servers,
};

export const AGENTS: RefKind<AgentRef> = {
  what: 'agent',
  a: 'an agent',
  listCommand: 'agents list',
  byId: (id) => `/api/v1/agents/${encodeURIComponent(id)}`,
  async list(api) {
    const all: AgentRef[] = [];
    let cursor: string | null = null;
    do {
      const page: { agents: AgentRef[]; next_cursor: string | null } = await api.request(
        'GET',
        `/api/v1/agents?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      all.push(...page.agents);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return all;
  },
};

/** Project keys and user tokens (the API reads them as a list only). */
export const KEYS: RefKind<Named> = {
  what: 'key',
  a: 'a key',
  listCommand: 'keys list',
  byId: null,
  list: async (api) => (await api.request<{ keys: Named[] }>('GET', '/api/v1/keys')).keys,
};

export const EXTENSIONS: RefKind<Named> = {
  what: 'extension',
  a: 'an extension',
  listCommand: 'extensions list',
  byId: null,
  list: async (api) => (await api.request<{ extensions: Named[] }>('GET', '/api/v1/extensions')).extensions,
};

const nameKey = (name: string): string => name.trim().toLowerCase();

async function byId<T>(api: ApiClient, route: string): Promise<T | null> {
  try {
    return await api.request<T>('GET', route);
  } catch (err) {
    if (err instanceof GatewayRefusal && err.status === 404) return null;
    throw err;
  }
}

/**
 * The record `ref` names: its id, else the one name it is unique to. `label` names the argument or
 * flag in a usage error (SERVER, --agent). Not found is the daemon's 404 shape, so it exits the same.
 */
export async function resolveRef<T extends Named>(api: ApiClient, kind: RefKind<T>, ref: string, bin: string, label: string): Promise<T> {
  if (ref.trim() === '') throw new UsageError(`${label}: ${kind.a} id or name`);
  if (kind.byId) {
    const direct = await byId<T>(api, kind.byId(ref));
    if (direct) return direct;
  }
  const all = await kind.list(api);
  const exact = all.find((x) => x.id === ref);
  if (exact) return exact;
  const matches = all.filter((x) => nameKey(x.name) === nameKey(ref));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1)
    throw new UsageError(
      `${label}: ${matches.length} ${kind.what}s are named "${ref}" (${matches.map((x) => x.id).join(', ')}); give the id`,
    );
  throw new GatewayRefusal(404, 'not_found', `No ${kind.what} with id or name "${ref}" (see ${bin} ${kind.listCommand}).`, undefined);
}

export const resolveServer = (api: ApiClient, ref: string, bin: string, label = 'SERVER'): Promise<McpServer> =>
  resolveRef(api, SERVERS, ref, bin, label);

export const resolveAgent = (api: ApiClient, ref: string, bin: string, label = '--agent'): Promise<AgentRef> =>
  resolveRef(api, AGENTS, ref, bin, label);
