// Reads of the pre-aggregated trace counters (sql/00012_counters.sql). Every query is a range scan
// of the counters' primary key (project, grain, dim, bucket): its cost grows with the number of
// buckets and distinct keys in the range, never with the number of traces. A range is read from the
// coarsest rows that cover it exactly (rollups.ts: days, then hours, then minutes).
import type { Sql } from '../db/connect.js';
import type { CounterDim, Grain } from '../ledger/counters.js';
import { segmentCondition, segments, type Rolled } from './rollups.js';
import type { Window } from './windows.js';

/** Totals of one timeline point (index 0..points-1; negative indexes are the previous window). */
export interface PointCount {
  readonly point: number;
  readonly traceType: string;
  readonly decision: string;
  readonly n: number;
}
export interface DimCount {
  readonly dim: CounterDim;
  readonly traceType: string;
  readonly decision: string;
  readonly key: string;
  readonly n: number;
}

interface Raw {
  point?: number;
  dim?: CounterDim;
  trace_type: string;
  decision: string;
  key?: string;
  n: string;
}

const inRange = (sql: Sql, from: Date, to: Date, rolled: Rolled, coarsest: Grain) =>
  segmentCondition(sql, segments(from.getTime(), to.getTime(), rolled, coarsest));

export async function pointCounts(sql: Sql, projectId: string, w: Window, rolled: Rolled): Promise<PointCount[]> {
  const rows = await sql<Raw[]>`
    select floor(extract(epoch from bucket - ${w.start.toISOString()}::timestamptz) * 1000 / ${w.pointMs})::int as point,
           trace_type, decision, sum(count)::text as n
    from trace_counts
    where project_id = ${projectId} and dim = 'total' and (${inRange(sql, w.previousStart, w.end, rolled, w.coarsest)})
    group by 1, 2, 3`;
  return rows.map((r) => ({ point: r.point!, traceType: r.trace_type, decision: r.decision, n: Number(r.n) }));
}

/** Agents, fired policies and content types over the window. */
export async function dimCounts(sql: Sql, projectId: string, w: Window, rolled: Rolled): Promise<DimCount[]> {
  const rows = await sql<Raw[]>`
    select dim, trace_type, decision, key, sum(count)::text as n
    from trace_counts
    where project_id = ${projectId} and dim in ('agent', 'policy', 'content_type') and (${inRange(sql, w.start, w.end, rolled, 'day')})
    group by 1, 2, 3, 4`;
  return rows.map((r) => ({ dim: r.dim!, traceType: r.trace_type, decision: r.decision, key: r.key!, n: Number(r.n) }));
}

/** Traces of the given types in [since, until). */
export async function countBetween(
  sql: Sql,
  projectId: string,
  since: Date,
  until: Date,
  traceTypes: readonly string[],
  rolled: Rolled,
): Promise<number> {
  const [row] = await sql<{ n: string | null }[]>`
    select sum(count)::text as n from trace_counts
    where project_id = ${projectId} and dim = 'total' and (${inRange(sql, since, until, rolled, 'day')})
      and trace_type = any(${sql.array([...traceTypes])}::text[])`;
  return Number(row?.n ?? 0);
}

/** Requests per agent, and '' for BLOCKED requests (of the given trace types) of anyone, in [from, to). */
export async function agentAndBlockCounts(
  sql: Sql,
  projectId: string,
  from: Date,
  to: Date,
  traceTypes: readonly string[],
  rolled: Rolled,
): Promise<Map<string, number>> {
  const rows = await sql<{ key: string; n: string }[]>`
    select case when dim = 'agent' then key else '' end as key, sum(count)::text as n
    from trace_counts
    where project_id = ${projectId} and dim in ('agent', 'total') and (${inRange(sql, from, to, rolled, 'day')})
      and (dim = 'agent' or (decision = 'BLOCKED' and trace_type = any(${sql.array([...traceTypes])}::text[])))
    group by 1`;
  return new Map(rows.map((r) => [r.key, Number(r.n)]));
}

/** Minute rows serve windows of at most 12 hours: once rolled up into hours, they are kept two days. */
export async function pruneMinuteCounters(sql: Sql, projectId: string, before: Date): Promise<number> {
  const result = await sql`
    delete from trace_counts
    where project_id = ${projectId} and grain = 'minute' and dim in ('total', 'agent', 'policy', 'content_type')
      and bucket < ${before.toISOString()}`;
  return result.count;
}
