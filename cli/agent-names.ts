// Agents by name for tables that hold agent ids (traces list): one GET /api/v1/agents (its first
// 1,000, oldest first), so an id shows as "name (id)" when the agent is registered, else as itself.
import type { ApiClient } from './api-client.js';
import { safeText } from './trace-output.js';

export async function agentNames(api: ApiClient, ids: readonly (string | null | undefined)[]): Promise<Map<string, string>> {
  if (!ids.some((id) => typeof id === 'string')) return new Map();
  const { agents } = await api.request<{ agents: { id: string; name: string }[] }>('GET', '/api/v1/agents');
  return new Map(agents.map((a) => [a.id, a.name]));
}

/** "name (id)", or the id alone; escaped and cut for a table cell. */
export function agentCell(id: unknown, names: ReadonlyMap<string, string>, max = 60): string | null {
  if (typeof id !== 'string') return null;
  const name = names.get(id);
  return safeText(name ? `${name} (${id})` : id, max);
}
