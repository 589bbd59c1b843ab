// gatewayctl agents get: one agent's full record, every registration and lifecycle field.
import { Args } from '@oclif/core';
import { GatewayCommand } from '../../base-command.js';
import { keyValues } from '../../format.js';
import { resolveAgent } from '../../name-or-id.js';

/** The agent record of /api/v1/agents; the fields the CLI reads are named, the rest pass through. */
export interface Agent {
  id: string;
  name: string;
  status: string;
  risk_classification: string | null;
  protection_profile: string;
  requests_today: number;
  last_seen_at: string | null;
  [field: string]: unknown;
}

/** Objects and lists as compact JSON, so every field of the record fits on its line. */
export function agentLines(agent: Readonly<Record<string, unknown>>): string {
  return keyValues(
    Object.fromEntries(Object.entries(agent).map(([k, v]) => [k, v !== null && typeof v === 'object' ? JSON.stringify(v) : (v as string)])),
  );
}

export default class AgentsGet extends GatewayCommand {
  static override summary = 'Show an agent: registration, risk, capability model, status and activity.';
  static override examples = ['<%= config.bin %> agents get AGENT_ID', '<%= config.bin %> agents get AGENT_ID --json'];
  static override args = {
    id: Args.string({ description: 'ID or name of the agent (see agents list).', required: true }),
  };

  async run(): Promise<Agent> {
    const { args } = await this.parse(AgentsGet);
    const api = await this.api();
    const { id } = await resolveAgent(api, args.id, this.config.bin);
    const agent = await api.request<Agent>('GET', `/api/v1/agents/${encodeURIComponent(id)}`);
    this.log(agentLines(agent));
    return agent;
  }
}
