// Hour and day rows of the counters, rolled up from the minute rows the ledger append writes (and
// days from hours) once they are over, so that a write touches one row per key and a 30-day read
// about 30 rows per key. A counter's bucket is its trace's created_at, which is the time of the
// append (a replayed dead-letter trace's too), so a minute that has passed never changes again; an
// hour or a day is rolled up once it ended at least ROLLUP_MARGIN_MS ago, which leaves room for a
// transaction still committing and for the clocks of several daemons, which must agree to within
// that. Rolled up on demand by the command center's read; a racing second rollup inserts nothing.
import type { PendingQuery, Row } from 'postgres';
import type { Sql, Tx } from '../db/connect.js';
import { GRAIN_MS, type Grain } from '../ledger/counters.js';

export const ROLLUP_MARGIN_MS = 10 * 60_000;

/** Everything before `hours` is also in hour rows, everything before `days` also in day rows. */
export interface Rolled {
  readonly hours: number;
  readonly days: number;
}

const floor = (ms: number, step: number): number => ms - (((ms % step) + step) % step);
const ceil = (ms: number, step: number): number => floor(ms + step - 1, step);
const iso = (ms: number): string => new Date(ms).toISOString();

function rollupInsert(tx: Tx, projectId: string, from: Grain, to: Grain, start: number, end: number): PendingQuery<Row[]> {
  return tx`
    insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
    select project_id, ${to}, dim, date_trunc(${to}, bucket at time zone 'UTC') at time zone 'UTC', trace_type, decision, key, sum(count)
    from trace_counts
    where project_id = ${projectId} and grain = ${from} and dim in ('total', 'agent', 'policy', 'content_type')
      and bucket >= ${iso(start)} and bucket < ${iso(end)}
    group by 1, 2, 3, 4, 5, 6, 7
    on conflict do nothing`;
}

export async function rollUp(sql: Sql, projectId: string, now: Date): Promise<Rolled> {
  const settled = now.getTime() - ROLLUP_MARGIN_MS;
  const target = { hours: floor(settled, GRAIN_MS.hour), days: floor(settled, GRAIN_MS.day) };
  const [row] = await sql<{ hours_until: Date | null; days_until: Date | null; first_minute: Date | null; first_hour: Date | null }[]>`
    select r.hours_until, r.days_until,
      (select min(bucket) from trace_counts where project_id = ${projectId} and grain = 'minute' and dim = 'total') as first_minute,
      (select min(bucket) from trace_counts where project_id = ${projectId} and grain = 'hour' and dim = 'total') as first_hour
    from (select 1) one left join trace_count_rollups r on r.project_id = ${projectId}`;
  // Without a mark, from the first row there is (or nothing to do when there is none).
  const first = Math.min(row?.first_minute?.getTime() ?? Infinity, row?.first_hour?.getTime() ?? Infinity);
  const from = {
    hours: row?.hours_until?.getTime() ?? (first === Infinity ? target.hours : floor(first, GRAIN_MS.hour)),
    days: row?.days_until?.getTime() ?? (first === Infinity ? target.days : floor(first, GRAIN_MS.day)),
  };
  if (from.hours >= target.hours && from.days >= target.days) return { hours: from.hours, days: from.days };
  await sql.begin(async (tx) => {
    if (from.hours < target.hours) await rollupInsert(tx, projectId, 'minute', 'hour', from.hours, target.hours);
    // A later statement of the transaction: it sees the hour rows just inserted.
    if (from.days < target.days) await rollupInsert(tx, projectId, 'hour', 'day', from.days, target.days);
    await tx`
      insert into trace_count_rollups (project_id, hours_until, days_until) values (${projectId}, ${iso(Math.max(from.hours, target.hours))}, ${iso(Math.max(from.days, target.days))})
      on conflict (project_id) do update set hours_until = greatest(trace_count_rollups.hours_until, excluded.hours_until),
                                            days_until = greatest(trace_count_rollups.days_until, excluded.days_until)`;
  });
  return { hours: Math.max(from.hours, target.hours), days: Math.max(from.days, target.days) };
}

export interface Segment {
  readonly grain: Grain;
  readonly from: number;
  readonly to: number;
}

/** [from, to) at minute grain, with its whole rolled-up hours as hour rows (when `coarsest` allows). */
function hourSegments(from: number, to: number, rolled: Rolled, coarsest: Grain): Segment[] {
  const a = ceil(from, GRAIN_MS.hour);
  const b = Math.min(floor(to, GRAIN_MS.hour), rolled.hours);
  const parts: Segment[] =
    coarsest === 'minute' || a >= b
      ? [{ grain: 'minute', from, to }]
      : [
          { grain: 'minute', from, to: a },
          { grain: 'hour', from: a, to: b },
          { grain: 'minute', from: b, to },
        ];
  return parts.filter((s) => s.from < s.to);
}

/**
 * The rows that count [from, to) (minute-aligned) exactly once: day rows for the whole rolled-up
 * days, hour rows for the whole rolled-up hours left, minute rows for the rest, never coarser than
 * `coarsest` (a timeline point must hold whole buckets).
 */
export function segments(from: number, to: number, rolled: Rolled, coarsest: Grain): Segment[] {
  const a = ceil(from, GRAIN_MS.day);
  const b = Math.min(floor(to, GRAIN_MS.day), rolled.days);
  if (coarsest !== 'day' || a >= b) return hourSegments(from, to, rolled, coarsest);
  return [...hourSegments(from, a, rolled, 'hour'), { grain: 'day', from: a, to: b }, ...hourSegments(b, to, rolled, 'hour')];
}

/** The bucket condition selecting `segs`. */
export function segmentCondition(sql: Sql, segs: readonly Segment[]): PendingQuery<Row[]> {
  if (segs.length === 0) return sql`false`;
  return segs
    .map((s) => sql`(grain = ${s.grain} and bucket >= ${iso(s.from)} and bucket < ${iso(s.to)})`)
    .reduce((acc, next) => sql`${acc} or ${next}`);
}
