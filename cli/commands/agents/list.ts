// gatewayctl agents list: the project's agents, a page at a time or (--all) every page.
import { Flags } from '@oclif/core';
import { AGENT_STATUSES, agentListQuery } from '../../../shared/agent-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import type { Agent } from './get.js';

export interface AgentPage {
  agents: Agent[];
  next_cursor: string | null;
}

export default class AgentsList extends GatewayCommand {
  static override summary = 'List agents with their status, risk class, protection profile and activity.';
  static override examples = [
    '<%= config.bin %> agents list --status PENDING_APPROVAL',
    '<%= config.bin %> agents list --risk high --all --json',
  ];

  static override flags = {
    status: Flags.string({ summary: 'Only agents in this status.', options: [...AGENT_STATUSES] }),
    risk: Flags.string({ summary: 'Only agents of this risk class: MINIMAL, LIMITED, HIGH or UNACCEPTABLE.' }),
    limit: Flags.integer({ summary: 'Agents per page (1-1000).', min: 1, max: 1000 }),
    cursor: Flags.string({ summary: 'Start after this agent: the next_cursor of the previous page.' }),
    all: Flags.boolean({ summary: 'Follow next_cursor until the last page.' }),
  };

  async run(): Promise<AgentPage> {
    const { flags } = await this.parse(AgentsList);
    const query = checkBody(
      agentListQuery,
      { status: flags.status, risk_classification: flags.risk, limit: flags.limit, cursor: flags.cursor },
      { risk_classification: '--risk' },
    );
    const api = await this.api();
    const result: AgentPage = { agents: [], next_cursor: query.cursor ?? null };
    do {
      const params = new URLSearchParams({ limit: String(query.limit) });
      if (query.status) params.set('status', query.status);
      if (query.risk_classification) params.set('risk_classification', query.risk_classification);
      if (result.next_cursor) params.set('cursor', result.next_cursor);
      const page = await api.request<AgentPage>('GET', `/api/v1/agents?${params}`);
      result.agents.push(...page.agents);
      result.next_cursor = page.next_cursor;
    } while (flags.all && result.next_cursor);
    if (result.agents.length === 0) this.log('No agents.');
    else {
      this.log(
        table(
          ['ID', 'NAME', 'STATUS', 'RISK', 'PROFILE', 'TODAY', 'LAST SEEN'],
          result.agents.map((a) => [a.id, a.name, a.status, a.risk_classification, a.protection_profile, a.requests_today, a.last_seen_at]),
        ),
      );
    }
    if (result.next_cursor) this.notice(`More agents: --cursor ${result.next_cursor}, or --all for every page.`);
    return result;
  }
}
