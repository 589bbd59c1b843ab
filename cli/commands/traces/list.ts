// gatewayctl traces list: a page of the project's traces, newest first, with every filter of
// GET /api/v1/traces; the flags are checked with the daemon's own schema before anything is sent.
// The table names a registered agent beside its id.
import { Flags } from '@oclif/core';
import { DECISIONS, TIME_RANGES, traceListQuery } from '../../../shared/trace-schemas.js';
import { checkBody } from '../../agent-flags.js';
import { agentCell, agentNames } from '../../agent-names.js';
import { GatewayCommand } from '../../base-command.js';
import { table } from '../../format.js';
import { safeText, type Trace, type TracePage } from '../../trace-output.js';

/** Long reasons are cut in the table; `traces get` shows them whole. */
const REASON_WIDTH = 60;

function row(t: Trace, names: ReadonlyMap<string, string>): (string | null | undefined)[] {
  const text = (v: unknown) => (typeof v === 'string' ? safeText(v, REASON_WIDTH) : null);
  return [t.id, t.timestamp, t.decision, agentCell(t.metadata?.agent_id, names), text(t.action_name), t.userAction, text(t.reason)];
}

export default class TracesList extends GatewayCommand {
  static override summary = 'List traces, newest first, one page at a time; prints how many match in all.';
  static override examples = [
    '<%= config.bin %> traces list --decision BLOCKED --time-range 24h',
    '<%= config.bin %> traces list --env staging --agent-id AGENT --since 2025-06-01T00:00:00Z --limit 50 --offset 50 --json',
  ];

  static override flags = {
    'time-range': Flags.string({ summary: 'Only traces of the last 24h, 7d or 30d (all: no limit).', options: [...TIME_RANGES] }),
    since: Flags.string({ summary: 'Only traces at or after this time (ISO 8601 with offset, e.g. 2025-06-01T00:00:00Z).' }),
    until: Flags.string({ summary: 'Only traces at or before this time (ISO 8601 with offset).' }),
    decision: Flags.string({ summary: 'Only traces with this decision.', options: [...DECISIONS] }),
    'agent-id': Flags.string({ summary: 'Only traces of this agent.' }),
    env: Flags.string({ summary: "Only traces of this environment (the daemon's default: prod)." }),
    limit: Flags.integer({ summary: 'Traces per page (1-1000, default 100).' }),
    offset: Flags.integer({ summary: 'Skip this many matching traces (for the next page: offset + limit).' }),
  };

  async run(): Promise<TracePage> {
    const { flags } = await this.parse(TracesList);
    const query = checkBody(
      traceListQuery,
      {
        time_range: flags['time-range'],
        since: flags.since,
        until: flags.until,
        decision: flags.decision,
        agent_id: flags['agent-id'],
        environment: flags.env,
        limit: flags.limit,
        offset: flags.offset,
      },
      { environment: '--env' },
    );
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
    const api = await this.api();
    const page = await api.request<TracePage>('GET', `/api/v1/traces?${params}`);
    const shown = page.traces.length;
    if (shown === 0) {
      this.log(page.total === 0 ? 'No traces.' : `No traces at offset ${query.offset}; ${page.total} match.`);
      return page;
    }
    const names = await agentNames(
      api,
      page.traces.map((x) => x.metadata?.agent_id),
    );
    this.log(
      table(
        ['ID', 'TIME', 'DECISION', 'AGENT', 'ACTION', 'REVIEW', 'REASON'],
        page.traces.map((x) => row(x, names)),
      ),
    );
    this.log(`Traces ${query.offset + 1}-${query.offset + shown} of ${page.total}.`);
    if (query.offset + shown < page.total) this.notice(`More traces: --offset ${query.offset + shown}.`);
    return page;
  }
}
