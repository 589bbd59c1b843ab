// Rollups of the counters: minute rows into hours and hours into days, only once they ended at
// least ROLLUP_MARGIN_MS ago, equal to the sum of what they roll up, once (a racing second rollup
// adds nothing); and a read over any range counts each minute exactly once, whatever is rolled up.
import t from 'tap';
import { countBetween } from '../../daemon/command-center/counter-reads.js';
import { rollUp, segments, type Rolled } from '../../daemon/command-center/rollups.js';
import { migratedDatabase } from '../helpers/project.js';

const at = (iso: string) => Date.parse(iso);
const NOTHING: Rolled = { hours: 0, days: 0 };

t.test('segments: days, then hours, then minutes, never coarser than asked, covering the range once', async (t) => {
  const rolled = { hours: at('2025-05-20T10:00:00Z'), days: at('2025-05-20T00:00:00Z') };
  const seg = (from: string, to: string, coarsest: 'minute' | 'hour' | 'day', r = rolled) =>
    segments(at(from), at(to), r, coarsest).map(
      (s) => `${s.grain} ${new Date(s.from).toISOString().slice(5, 16)}..${new Date(s.to).toISOString().slice(5, 16)}`,
    );
  t.same(seg('2025-05-17T07:30:00Z', '2025-05-20T10:31:00Z', 'day'), [
    'minute 05-17T07:30..05-17T08:00',
    'hour 05-17T08:00..05-18T00:00',
    'day 05-18T00:00..05-20T00:00',
    'hour 05-20T00:00..05-20T10:00',
    'minute 05-20T10:00..05-20T10:31',
  ]);
  t.same(seg('2025-05-17T07:30:00Z', '2025-05-20T10:31:00Z', 'hour'), [
    'minute 05-17T07:30..05-17T08:00',
    'hour 05-17T08:00..05-20T10:00',
    'minute 05-20T10:00..05-20T10:31',
  ]);
  t.same(seg('2025-05-20T08:00:00Z', '2025-05-20T10:31:00Z', 'minute'), ['minute 05-20T08:00..05-20T10:31']);
  t.same(
    seg('2025-05-17T00:00:00Z', '2025-05-20T10:31:00Z', 'day', NOTHING),
    ['minute 05-17T00:00..05-20T10:31'],
    'nothing rolled up: minutes',
  );
  t.same(seg('2025-05-20T10:00:00Z', '2025-05-20T10:00:00Z', 'day'), [], 'an empty range');
});

/** Minute rows every 7 minutes from 2025-05-15 to `until`, for two keys. */
async function seedMinutes(sql: Awaited<ReturnType<typeof migratedDatabase>>['sql'], until: string): Promise<void> {
  await sql`
    insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
    select 'p1', 'minute', d.dim, b, d.tt, d.decision, d.key, (extract(epoch from b)::bigint / 60) % 5 + 1
    from generate_series('2025-05-15T00:00:00Z'::timestamptz, ${until}::timestamptz, interval '7 minutes') b
    cross join (values ('total', 'VERIFY', 'PASSED', ''), ('total', 'MCP_TOOL_CALL', 'BLOCKED', ''), ('agent', '', '', 'agent-1')) d(dim, tt, decision, key)`;
}

t.test('rolls minutes into hours and hours into days once they are over, equal to their sums, once', async (t) => {
  const { sql } = await migratedDatabase(t);
  const now = new Date('2025-05-20T10:30:00Z');
  await seedMinutes(sql, '2025-05-20T10:29:00Z');
  const [a, b] = await Promise.all([rollUp(sql, 'p1', now), rollUp(sql, 'p1', now)]);
  t.same(a, { hours: at('2025-05-20T10:00:00Z'), days: at('2025-05-20T00:00:00Z') });
  t.same(b, a, 'a racing rollup agrees');
  for (const [coarse, fine, until] of [
    ['hour', 'minute', '2025-05-20T10:00:00Z'],
    ['day', 'hour', '2025-05-20T00:00:00Z'],
  ] as const) {
    const diff = await sql`
      with fine as (select dim, date_trunc(${coarse}, bucket at time zone 'UTC') at time zone 'UTC' as bucket, trace_type, decision, key, sum(count) as n
                    from trace_counts where grain = ${fine} and bucket < ${until} group by 1, 2, 3, 4, 5)
      select * from fine f full join (select dim, bucket, trace_type, decision, key, count as n from trace_counts where grain = ${coarse}) c
        using (dim, bucket, trace_type, decision, key) where f.n is distinct from c.n`;
    t.equal(diff.length, 0, `each ${coarse} row is the sum of its ${fine}s`);
  }
  t.equal(
    (await sql`select 1 from trace_counts where grain = 'hour' and bucket >= '2025-05-20T10:00:00Z'`).length,
    0,
    'the current hour is not rolled up',
  );

  t.same(await rollUp(sql, 'p1', new Date('2025-05-20T11:09:00Z')), a, 'an hour waits ROLLUP_MARGIN_MS after its end');
  t.same(await rollUp(sql, 'p1', new Date('2025-05-20T11:10:00Z')), { hours: at('2025-05-20T11:00:00Z'), days: a.days });
  t.same(await rollUp(sql, 'p1', new Date('2025-05-21T00:10:00Z')), {
    hours: at('2025-05-21T00:00:00Z'),
    days: at('2025-05-21T00:00:00Z'),
  });
});

t.test('a count over any range is the same from rolled-up rows as from minutes alone', async (t) => {
  const { sql } = await migratedDatabase(t);
  await seedMinutes(sql, '2025-05-20T10:29:00Z');
  const types = ['VERIFY', 'MCP_TOOL_CALL'];
  const ranges = [
    ['2025-05-15T00:00:00Z', '2025-05-20T11:00:00Z'],
    ['2025-05-16T07:13:00Z', '2025-05-19T22:41:00Z'],
    ['2025-05-20T09:30:00Z', '2025-05-20T10:30:00Z'],
  ];
  const before = await Promise.all(ranges.map(([f, u]) => countBetween(sql, 'p1', new Date(f!), new Date(u!), types, NOTHING)));
  const rolled = await rollUp(sql, 'p1', new Date('2025-05-20T10:30:00Z'));
  const after = await Promise.all(ranges.map(([f, u]) => countBetween(sql, 'p1', new Date(f!), new Date(u!), types, rolled)));
  t.same(after, before);
  t.ok(before.every((n) => n > 0));
});

t.test('an empty project rolls up nothing and says so', async (t) => {
  const { sql } = await migratedDatabase(t);
  t.same(await rollUp(sql, 'p1', new Date('2025-05-20T10:30:00Z')), {
    hours: at('2025-05-20T10:00:00Z'),
    days: at('2025-05-20T00:00:00Z'),
  });
  t.equal((await sql`select * from trace_counts`).length, 0);
});
