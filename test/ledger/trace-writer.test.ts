import t from 'tap';
import { connect } from '../../daemon/db/connect.js';
import { sqlState } from '../../daemon/db/sqlstate.js';
import { appendAdmin, appendTraces } from '../../daemon/ledger/append.js';
import { adminEntry, SYSTEM_ACTOR } from '../../daemon/project/admin-actions.js';
import { TraceWriter } from '../../daemon/ledger/trace-writer.js';
import { checkChain } from '../../daemon/ledger/check-chain.js';
import { GENESIS_HASH, isIntegrityHash } from '../../shared/ledger-hash.js';
import { inspect } from '../helpers/db.js';
import { migratedDatabase } from '../helpers/project.js';

const trace = (i: number) => ({ traceType: 'TEST', decision: 'PASSED', reason: `r${i}`, content: { prompt: `hello ${i}` } });

t.test('appends number from 1 with no gaps and link each entry to the previous', async (t) => {
  const { sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  const a = await writer.append('p1', trace(1));
  const b = await writer.append('p1', trace(2));
  t.equal(a.sequenceNum, 1);
  t.equal(b.sequenceNum, 2);
  t.ok(isIntegrityHash(a.integrityHash));
  const rows = await sql<{ sequence_num: string; prev_hash: string; integrity_hash: string }[]>`
    select sequence_num, prev_hash, integrity_hash from traces order by sequence_num`;
  t.equal(rows[0]!.prev_hash, GENESIS_HASH);
  t.equal(rows[1]!.prev_hash, rows[0]!.integrity_hash);
  const report = await checkChain(sql, 'p1', 'traces');
  t.equal(report.intact, true);
  t.equal(report.checked, 2);
});

t.test('each project has its own chain starting at 1', async (t) => {
  const { sql } = await migratedDatabase(t);
  await sql`insert into projects (id, name) values ('p2', 'two')`;
  const writer = new TraceWriter(sql, 500);
  await writer.append('p1', trace(1));
  const other = await writer.append('p2', trace(1));
  t.equal(other.sequenceNum, 1);
  t.equal((await checkChain(sql, 'p2', 'traces')).intact, true);
});

t.test('64 concurrent writers across two daemons give one gapless, verifiable chain', async (t) => {
  const { url, sql } = await migratedDatabase(t);
  const second = connect(url, { max: 10, instanceId: 'second' });
  t.teardown(() => second.end({ timeout: 1 }));
  const writers = [new TraceWriter(sql, 500), new TraceWriter(second, 500)];
  const perWriter = 20;
  const results = await Promise.all(
    Array.from({ length: 64 }, async (_, w) => {
      const out = [];
      for (let i = 0; i < perWriter; i++) out.push(await writers[w % 2]!.append('p1', trace(w * 1000 + i)));
      return out;
    }),
  );
  const seqs = results
    .flat()
    .map((r) => r.sequenceNum)
    .sort((x, y) => x - y);
  t.equal(seqs.length, 64 * perWriter);
  t.same(
    seqs,
    Array.from({ length: 64 * perWriter }, (_, i) => i + 1),
    'every number from 1 to N exactly once',
  );
  const report = await checkChain(sql, 'p1', 'traces');
  t.equal(report.intact, true, JSON.stringify(report.first_broken));
  t.equal(report.checked, 64 * perWriter);
  const [batches] = await sql<{ n: number }[]>`select count(distinct created_at)::int as n from traces`;
  t.ok(batches!.n < 64 * perWriter, 'concurrent appends share transactions (group commit)');
});

t.test('the database refuses UPDATE, DELETE and TRUNCATE of ledger rows and moving a head back', async (t) => {
  const { sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  await writer.append('p1', trace(1));
  await sql.begin((tx) =>
    appendAdmin(tx, 'p1', [adminEntry(SYSTEM_ACTOR, { action: 'test', activity: 'create', targetType: 't', targetId: null })]),
  );
  const attempts: [string, () => Promise<unknown>][] = [
    ['update decision', () => sql`update traces set decision = 'BLOCKED'`],
    ['update hash', () => sql`update traces set integrity_hash = 'sha256:00'`],
    ['delete', () => sql`delete from traces`],
    ['truncate', () => sql`truncate traces cascade`],
    ['admin update', () => sql`update admin_log set action = 'x'`],
    ['admin truncate', () => sql`truncate admin_log`],
    ['head back', () => sql`update ledger_heads set seq = 0 where project_id = 'p1' and stream = 'traces'`],
    ['head delete', () => sql`delete from ledger_heads`],
  ];
  for (const [name, run] of attempts) {
    const err = await run().then(
      () => null,
      (e: unknown) => e,
    );
    t.equal(sqlState(err), 'GW001', `${name} is refused`);
  }
  const [row] = await sql<{ decision: string; n: number }[]>`select decision, (select count(*)::int from traces) as n from traces`;
  t.same(row, { decision: 'PASSED', n: 1 }, 'nothing changed');
});

t.test('a row rewritten by the database owner is named by verify-chain', async (t) => {
  const { url, sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  for (let i = 1; i <= 5; i++) await writer.append('p1', trace(i));
  const owner = inspect(t, url);
  await owner.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`update traces set reason = 'rewritten' where sequence_num = 3`;
  });
  const report = await checkChain(sql, 'p1', 'traces');
  t.equal(report.intact, false);
  t.equal(report.first_broken?.sequence_num, 3);
  t.match(report.first_broken?.reason, /integrity_hash/);
});

t.test('content is committed by hash: tampering is caught, deletion by retention is not a break', async (t) => {
  const { url, sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  for (let i = 1; i <= 3; i++) await writer.append('p1', trace(i));
  const owner = inspect(t, url);
  await owner`update trace_content set body = ${owner.json({ prompt: 'forged' })} where trace_id = (select id from traces where sequence_num = 2)`;
  let report = await checkChain(sql, 'p1', 'traces');
  t.equal(report.first_broken?.sequence_num, 2);
  t.match(report.first_broken?.reason, /content/);
  await owner`delete from trace_content where trace_id = (select id from traces where sequence_num = 2)`;
  report = await checkChain(sql, 'p1', 'traces');
  t.equal(report.intact, true, 'the chain still verifies without the content');
});

t.test('a deleted row (bypassing the trigger) is named as a gap', async (t) => {
  const { url, sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  for (let i = 1; i <= 4; i++) await writer.append('p1', trace(i));
  const owner = inspect(t, url);
  await owner.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`delete from trace_content where trace_id = (select id from traces where sequence_num = 2)`;
    await tx`delete from traces where sequence_num = 2`;
  });
  const report = await checkChain(sql, 'p1', 'traces');
  t.equal(report.intact, false);
  t.match(report.first_broken?.reason, /gap/);
});

t.test('a failed batch answers every waiting caller with the error and numbers nothing', async (t) => {
  const { sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  const bad = { traceType: 'TEST', decision: 'PASSED', content: { prompt: 'nul \u0000 byte' } };
  const outcomes = await Promise.allSettled([writer.append('p1', bad), writer.append('p1', bad)]);
  t.same(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  );
  const [head] = await sql<{ seq: string }[]>`select seq from ledger_heads where project_id = 'p1' and stream = 'traces'`;
  t.equal(Number(head!.seq), 0);
  const ok = await writer.append('p1', trace(1));
  t.equal(ok.sequenceNum, 1, 'the next append still starts at 1');
});

/** The statements `sql` sends while `fn` runs, whitespace collapsed. */
async function statementsDuring(sql: Awaited<ReturnType<typeof migratedDatabase>>['sql'], fn: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const options = (sql as unknown as { options: { debug?: unknown } }).options;
  options.debug = (_conn: number, query: string) => {
    seen.push(query.replace(/\s+/g, ' ').trim());
  };
  try {
    await fn();
  } finally {
    options.debug = undefined;
  }
  return seen;
}

t.test(
  'while the head is the one it wrote, a writer appends in one statement; a head moved by someone else is read again under its lock',
  async (t) => {
    const { sql } = await migratedDatabase(t);
    const writer = new TraceWriter(sql, 500);
    await writer.append('p1', trace(1));
    const fast = await statementsDuring(sql, () => writer.append('p1', trace(2)));
    t.equal(fast.length, 1, 'one statement');
    t.match(fast[0], /^with moved as \( ?update ledger_heads/);
    await sql.begin((tx) => appendTraces(tx, 'p1', [trace(3), trace(4)])); // another writer: a domain transaction
    let fifth: Awaited<ReturnType<TraceWriter['append']>> | undefined;
    const slow = await statementsDuring(sql, async () => {
      fifth = await writer.append('p1', trace(5));
    });
    t.match(slow[0], /^with moved as/, 'the one-statement write is tried first ...');
    t.ok(
      slow.some((q) => /for update/.test(q)),
      '... finds the head moved and takes the lock',
    );
    t.equal(fifth!.sequenceNum, 5, "numbered after the other writer's entries");
    const again = await statementsDuring(sql, () => writer.append('p1', trace(6)));
    t.equal(again.length, 1, 'and the next batch is one statement again');
    const report = await checkChain(sql, 'p1', 'traces');
    t.equal(report.intact, true, JSON.stringify(report.first_broken));
    t.equal(report.checked, 6);
    const [content] = await sql<
      { n: number }[]
    >`select count(*)::int as n from trace_content c join traces r on r.id = c.trace_id where c.project_id = 'p1'`;
    t.equal(content!.n, 6, 'every entry has its content');
    const [counted] = await sql<
      { n: number }[]
    >`select coalesce(sum(count), 0)::int as n from trace_counts where project_id = 'p1' and grain = 'minute' and dim = 'total'`;
    t.equal(counted!.n, 6, 'and is counted once');
  },
);

t.test(
  'a one-statement write that waits on a transaction holding the head re-reads it after that commits (no gap, no fork, no deadlock)',
  async (t) => {
    const { sql, url } = await migratedDatabase(t);
    const writer = new TraceWriter(sql, 500);
    await writer.append('p1', trace(1));
    const other = connect(url, { max: 2, instanceId: 'other' });
    t.teardown(() => other.end({ timeout: 1 }));
    let waiting: Promise<Awaited<ReturnType<TraceWriter['append']>>> | undefined;
    await other.begin(async (tx) => {
      await appendTraces(tx, 'p1', [trace(2)]); // holds the head's row lock until commit
      waiting = writer.append('p1', trace(3));
      for (let i = 0; i < 500; i += 1) {
        // until the writer's statement waits on that lock
        const [w] = await sql<
          { n: number }[]
        >`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%with moved as%'`;
        if (w!.n > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      t.fail('the writer never waited on the head');
    });
    const third = await waiting!;
    t.equal(third.sequenceNum, 3, 'numbered after the transaction it waited for');
    const report = await checkChain(sql, 'p1', 'traces');
    t.equal(report.intact, true, JSON.stringify(report.first_broken));
    t.equal(report.checked, 3);
  },
);

t.test('a failed one-statement batch numbers nothing and the next append continues the chain', async (t) => {
  const { sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  await writer.append('p1', trace(1));
  const bad = { traceType: 'TEST', decision: 'PASSED', content: { prompt: 'nul \u0000 byte' } };
  const outcomes = await Promise.allSettled([writer.append('p1', bad), writer.append('p1', bad)]);
  t.same(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected'],
  );
  const [head] = await sql<{ seq: string }[]>`select seq from ledger_heads where project_id = 'p1' and stream = 'traces'`;
  t.equal(Number(head!.seq), 1, 'the head did not move');
  t.equal((await writer.append('p1', trace(2))).sequenceNum, 2);
  t.equal((await checkChain(sql, 'p1', 'traces')).intact, true);
});

t.test('a trace the database refuses fails alone: the others of its batch are written, in order', async (t) => {
  const { sql } = await migratedDatabase(t);
  const writer = new TraceWriter(sql, 500);
  const taken = await writer.append('p1', trace(1));
  const first = writer.append('p1', trace(2)); // flushes alone; the next three queue behind it as one batch
  const batch = [writer.append('p1', trace(3)), writer.append('p1', { ...trace(4), id: taken.id }), writer.append('p1', trace(5))];
  await first;
  const outcomes = await Promise.allSettled(batch);
  t.same(
    outcomes.map((o) => o.status),
    ['fulfilled', 'rejected', 'fulfilled'],
    'only the duplicate id is refused',
  );
  t.same(
    outcomes.map((o) => (o.status === 'fulfilled' ? o.value.sequenceNum : null)),
    [3, null, 4],
  );
  const report = await checkChain(sql, 'p1', 'traces');
  t.equal(report.intact, true, JSON.stringify(report.first_broken));
  t.equal(report.checked, 4);
});
