// What every trace read shares: the id check, the time windows, the project's audit level, and
// the one SELECT of a trace with its content and latest reviewer action.
import type { PendingQuery, Row } from 'postgres';
import type { Sql, Tx } from '../db/connect.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Trace ids are UUIDs; anything else names no trace (and must not reach a uuid cast). */
export function isTraceId(value: string): boolean {
  return UUID.test(value);
}

const RANGE_HOURS: Record<string, number> = { '24h': 24, '7d': 24 * 7, '30d': 24 * 30 };

/** The window of a `time_range` value in hours; undefined for `all` or none. */
export function rangeHours(timeRange: string | undefined): number | undefined {
  return timeRange ? RANGE_HOURS[timeRange] : undefined;
}

export async function auditLevel(sql: Sql | Tx, projectId: string): Promise<string> {
  const [row] = await sql<{ audit_detail_level: string }[]>`select audit_detail_level from projects where id = ${projectId}`;
  return row?.audit_detail_level ?? 'standard';
}

/**
 * Content body, latest reviewer action and whether a raw original can still be read (its data key
 * not shredded; values sealed before per-project keys have no `dek` and stay readable).
 */
function contentAndAction(sql: Sql) {
  return sql`
    left join trace_content c on c.trace_id = t.id
    left join raw_keys rk on rk.id = c.body -> 'raw' ->> 'dek'
    left join lateral (
      select a.action, a.justification from trace_actions a where a.trace_id = t.id order by a.created_at desc limit 1
    ) ua on true`;
}

/** SELECT of traces (alias t) with content body and the latest reviewer action; callers add WHERE and ORDER. */
export function selectTraces(sql: Sql) {
  return sql`
    select t.*, c.body, ua.action as user_action, ua.justification, (c.body ? 'raw' and (c.body -> 'raw' ->> 'dek' is null or rk.wrapped is not null)) as raw_readable
    from traces t ${contentAndAction(sql)}`;
}

/**
 * As selectTraces, for the traces of one project whose sequence_num the subquery `keys` yields.
 * A page is found on an index first and only its rows are read, joined and returned.
 */
export function selectTracesByKeys(sql: Sql, projectId: string, keys: PendingQuery<Row[]>) {
  return sql`
    select t.*, c.body, ua.action as user_action, ua.justification, (c.body ? 'raw' and (c.body -> 'raw' ->> 'dek' is null or rk.wrapped is not null)) as raw_readable
    from (${keys}) k
    join traces t on t.project_id = ${projectId} and t.sequence_num = k.sequence_num ${contentAndAction(sql)}`;
}
