// Agents by name for tables that hold agent ids (traces list): the agents' listing (name-or-id.ts,
// every page), so an id shows as "name (id)" when the agent is registered, else as itself.
import type { ApiClient } from './api-client.js';
import { AGENTS } from './name-or-id.js';
import { safeText } from './trace-output.js';

export async function agentNames(api: ApiClient, ids: readonly (string | null | undefined)[]): Promise<Map<string, string>> {
  if (!ids.some((id) => typeof id === 'string')) return new Map();
  return new Map((await AGENTS.list(api)).map((a) => [a.id, a.name]));
}

/** "name (id)", or the id alone; escaped and cut for a table cell. */
export function agentCell(id: unknown, names: ReadonlyMap<string, string>, max = 60): string | null {
  if (typeof id !== 'string') return null;
  const name = names.get(id);
  return safeText(name ? `${name} (${id})` : id, max);
}
