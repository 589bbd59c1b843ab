// Reading traces: the filtered, paged list and the lookup of one trace by id (regardless of age
// or environment). Filters are bound parameters composed as SQL fragments, never strings.
import type { z } from 'zod';
import type { traceListQuery } from '../../shared/trace-schemas.js';
import { flareFieldsOf } from '../anchor/trace-status.js';
import type { Sql } from '../db/connect.js';
import { auditLevel, isTraceId, rangeHours, selectTraces, selectTracesByKeys } from './query.js';
import { fullRecord, listRow, type StoredTrace } from './rows.js';

export type TraceQuery = z.infer<typeof traceListQuery>;

/**
 * `total` is exact up to this many matches, or up to offset + limit when a client pages deeper;
 * beyond that it is that bound + 1 ("more than"). An exact count(*) of millions of rows costs
 * seconds on every page; this costs at most what skipping `offset` rows already costs.
 */
export const TOTAL_EXACT_UP_TO = 10_000;

/** The page and count queries of a list request, unexecuted (the benchmark EXPLAINs them). */
export function listQueries(sql: Sql, projectId: string, q: TraceQuery, exactUpTo = TOTAL_EXACT_UP_TO) {
  const environment = q.environment ?? q.env ?? 'prod';
  const hours = rangeHours(q.time_range);
  const where = sql`
    where t.project_id = ${projectId} and t.environment = ${environment}
    ${hours ? sql`and t.created_at >= now() - make_interval(hours => ${hours})` : sql``}
    ${q.since ? sql`and t.created_at >= ${q.since}` : sql``}
    ${q.until ? sql`and t.created_at <= ${q.until}` : sql``}
    ${q.decision ? sql`and t.decision = ${q.decision}` : sql``}
    ${q.agent_id ? sql`and t.agent_id = ${q.agent_id}` : sql``}`;
  const order = sql`order by t.created_at desc, t.sequence_num desc`;
  // The offset is skipped on an index (sequence_num and created_at are in every list index), so
  // only the page's own rows are read from the heap and joined to their content and actions.
  const keys = sql`select t.sequence_num from traces t ${where} ${order} limit ${q.limit} offset ${q.offset}`;
  const reach = Math.max(exactUpTo, q.offset + q.limit);
  return {
    page: sql<StoredTrace[]>`${selectTracesByKeys(sql, projectId, keys)} ${order}`,
    count: sql<{ total: number }[]>`select count(*)::int as total from (select from traces t ${where} limit ${reach + 1}) m`,
  };
}

/** The lookup of one trace by id, unexecuted. */
export function lookupQuery(sql: Sql, projectId: string, id: string) {
  return sql<StoredTrace[]>`${selectTraces(sql)} where t.project_id = ${projectId} and t.id = ${id}`;
}

export async function listTraces(
  sql: Sql,
  projectId: string,
  q: TraceQuery,
): Promise<{ traces: Record<string, unknown>[]; total: number }> {
  const level = await auditLevel(sql, projectId);
  if (q.id !== undefined) {
    if (!isTraceId(q.id)) return { traces: [], total: 0 };
    const rows = await lookupQuery(sql, projectId, q.id);
    const flare = await flareFieldsOf(
      sql,
      projectId,
      rows.map((r) => Number(r.sequence_num)),
    );
    return { traces: rows.map((r) => fullRecord(r, level, flare(Number(r.sequence_num)))), total: rows.length };
  }
  const { page, count } = listQueries(sql, projectId, q);
  const [rows, [counted]] = await Promise.all([page, count]);
  // One coverage query for the whole page, after it is known (not one per row).
  const flare = await flareFieldsOf(
    sql,
    projectId,
    rows.map((r) => Number(r.sequence_num)),
  );
  return { traces: rows.map((r) => listRow(r, level, flare(Number(r.sequence_num)))), total: counted!.total };
}
