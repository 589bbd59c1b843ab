// Reading traces: the filtered, paged list and the lookup of one trace by id (regardless of age
// or environment). Filters are bound parameters composed as SQL fragments, never strings.
import type { z } from 'zod';
import type { traceListQuery } from '../../shared/trace-schemas.js';
import type { Sql } from '../db/connect.js';
import { auditLevel, isTraceId, rangeHours, selectTraces } from './query.js';
import { fullRecord, listRow, type StoredTrace } from './rows.js';

export type TraceQuery = z.infer<typeof traceListQuery>;

export async function listTraces(sql: Sql, projectId: string, q: TraceQuery): Promise<{ traces: Record<string, unknown>[]; total: number }> {
  const level = await auditLevel(sql, projectId);
  if (q.id !== undefined) {
    if (!isTraceId(q.id)) return { traces: [], total: 0 };
    const rows = await sql<StoredTrace[]>`${selectTraces(sql)} where t.project_id = ${projectId} and t.id = ${q.id}`;
    return { traces: rows.map((r) => fullRecord(r, level)), total: rows.length };
  }
  const environment = q.environment ?? q.env ?? 'prod';
  const hours = rangeHours(q.time_range);
  const where = sql`
    where t.project_id = ${projectId} and t.environment = ${environment}
    ${hours ? sql`and t.created_at >= now() - make_interval(hours => ${hours})` : sql``}
    ${q.since ? sql`and t.created_at >= ${q.since}` : sql``}
    ${q.until ? sql`and t.created_at <= ${q.until}` : sql``}
    ${q.decision ? sql`and t.decision = ${q.decision}` : sql``}
    ${q.agent_id ? sql`and t.agent_id = ${q.agent_id}` : sql``}`;
  const [rows, [count]] = await Promise.all([
    sql<StoredTrace[]>`${selectTraces(sql)} ${where} order by t.created_at desc, t.sequence_num desc limit ${q.limit} offset ${q.offset}`,
    sql<{ total: number }[]>`select count(*)::int as total from traces t ${where}`,
  ]);
  return { traces: rows.map((r) => listRow(r, level)), total: count!.total };
}
