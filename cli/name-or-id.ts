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

/** The record at `route`, or the daemon's not_found refusal (kept: it carries the request id). */
async function byId<T>(api: ApiClient, route: string): Promise<T | GatewayRefusal> {
  try {
    return await api.request<T>('GET', route);
  } catch (err) {
    if (err instanceof GatewayRefusal && err.status === 404) return err;
    throw err;
  }
}

/** The record `ref` names (its id, else the one name it is unique to), or why there is none. */
async function lookUp<T extends Named>(api: ApiClient, kind: RefKind<T>, ref: string, label: string): Promise<T | GatewayRefusal | null> {
  if (ref.trim() === '') throw new UsageError(`${label}: ${kind.a} id or name`);
  const direct = kind.byId ? await byId<T>(api, kind.byId(ref)) : null;
  if (direct !== null && !(direct instanceof GatewayRefusal)) return direct;
  const all = await kind.list(api);
  const exact = all.find((x) => x.id === ref);
  if (exact) return exact;
  const matches = all.filter((x) => nameKey(x.name) === nameKey(ref));
  if (matches.length === 1) return matches[0]!;
  if (matches.length > 1)
    throw new UsageError(
      `${label}: ${matches.length} ${kind.what}s are named "${ref}" (${matches.map((x) => x.id).join(', ')}); give the id`,
    );
  return direct;
}

/**
 * The record `ref` names: its id, else the one name it is unique to. `label` names the argument or
 * flag in a usage error (SERVER, --agent). Not found has the daemon's shape, so it exits the same, and
 * the request id of the daemon's own not_found where the kind has a route by id.
 */
export async function resolveRef<T extends Named>(api: ApiClient, kind: RefKind<T>, ref: string, bin: string, label: string): Promise<T> {
  const found = await lookUp(api, kind, ref, label);
  if (found !== null && !(found instanceof GatewayRefusal)) return found;
  const message = `No ${kind.what} with id or name "${ref}" (see ${bin} ${kind.listCommand}).`;
  throw new GatewayRefusal(404, 'not_found', message, found?.requestId);
}

/**
 * The agent id an MCP call, rule or stop names: a registered agent's id or its unique name, else the
 * text as given. MCP callers name themselves in X-Agent-Id, so an id no registered agent carries is a
 * valid subject; where it is not, the daemon refuses it with its own not_found.
 */
export async function mcpAgentId(api: ApiClient, ref: string, label: string): Promise<string> {
  const found = await lookUp(api, AGENTS, ref, label);
  if (found !== null && !(found instanceof GatewayRefusal)) return found.id;
  if (!HEADER_SAFE.test(ref)) throw new UsageError(`${label}: no agent is named "${ref}", and an agent id is printable ASCII`);
  return ref;
}

const HEADER_SAFE = /^[\x20-\x7e]{1,200}$/;

/** An agent reference as typed, checked before any request: 1 to 200 characters, none a control character. */
export function checkAgentRef(ref: string, label: string): void {
  if (!/^[^\p{Cc}]{1,200}$/u.test(ref))
    throw new UsageError(`${label}: an agent id or name, 1 to 200 characters without control characters`);
}

export const resolveServer = (api: ApiClient, ref: string, bin: string, label = 'SERVER'): Promise<McpServer> =>
  resolveRef(api, SERVERS, ref, bin, label);

export const resolveAgent = (api: ApiClient, ref: string, bin: string, label = '--agent'): Promise<AgentRef> =>
  resolveRef(api, AGENTS, ref, bin, label);
