import t from 'tap';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { connect, type Sql } from '../../daemon/db/connect.js';
import { migrate } from '../../daemon/db/migrate.js';
import { sqlState } from '../../daemon/db/sqlstate.js';
import { governanceHeaders } from '../../daemon/http/governance-headers.js';
import { DeadLetterQueue, type SetAsideKind } from '../../daemon/ledger/dlq.js';
import { TraceNotPersistedError } from '../../daemon/ledger/dlq-outcome.js';
import { TraceWriter } from '../../daemon/ledger/trace-writer.js';
import type { TraceWritten } from '../../daemon/ledger/trace-written.js';
import { checkChain } from '../../daemon/ledger/check-chain.js';
import { createLogger } from '../../daemon/log.js';
import { createProjectRows } from '../../daemon/project/bootstrap.js';
import { migratedDatabase } from '../helpers/project.js';
import { stoppablePostgres } from '../helpers/stoppable-postgres.js';
import { freeLoopbackPort } from '../helpers/ports.js';

const trace = (n: number, extra: Record<string, unknown> = {}) => ({ traceType: 'TEST', decision: 'PASSED', content: { n, ...extra } });

async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function tempDir(t: Test): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-dlq-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A pool onto a loopback port nobody listens on: every connection attempt is refused. */
async function refusedSql(t: Test): Promise<Sql> {
  const port = await freeLoopbackPort();
  const sql = connect(`postgres://gateway@127.0.0.1:${port}/none`, { max: 2, instanceId: 'refused' });
  t.teardown(() => sql.end({ timeout: 1 }));
  return sql;
}

interface Harness {
  writer: TraceWriter;
  logs: string[];
  setAside: SetAsideKind[];
}

async function startWriter(t: Test, sql: Sql, dir: string, batchMax = 500, retryMs = 50): Promise<Harness> {
  const logs: string[] = [];
  const setAside: SetAsideKind[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const writer = new TraceWriter(
    sql,
    batchMax,
    {
      batchCommitted: () => {},
      traceCommitted: () => {},
      dlqSetAside: (kind) => setAside.push(kind),
    },
    { dlq: new DeadLetterQueue(path.join(dir, 'dlq')), log: createLogger('info', sink), retryMs },
  );
  await writer.start();
  t.teardown(() => writer.close());
  return { writer, logs, setAside };
}

async function ledgerRows(sql: Sql, projectId: string) {
  return sql<{ id: string; sequence_num: string; body: Record<string, unknown> | null }[]>`
    select t.id::text as id, t.sequence_num, c.body from traces t left join trace_content c on c.trace_id = t.id
    where t.project_id = ${projectId} order by t.sequence_num`;
}

const dlqFile = (dir: string) => path.join(dir, 'dlq', 'traces.log');
const fileSize = (file: string) =>
  fs.stat(file).then(
    (s) => s.size,
    () => 0,
  );

t.test('under load, two outages: traces go to the dead-letter queue and come back exactly once, in order', async (t) => {
  const pg = await stoppablePostgres(t);
  const url = await pg.createDatabase('ledger');
  const sql = connect(url, { max: 10, instanceId: 'load' });
  t.teardown(() => sql.end({ timeout: 1 }));
  await migrate(sql);
  const projects = ['p1', 'p2', 'p3'];
  await sql.begin(async (tx) => {
    for (const p of projects) await createProjectRows(tx, p, p);
  });
  const dir = await tempDir(t);
  const { writer } = await startWriter(t, sql, dir, 100, 250);

  const issued: Record<string, number> = { p1: 0, p2: 0, p3: 0 };
  const results: { project: string; n: number; outage: number; written: TraceWritten }[] = [];
  const errors: unknown[] = [];
  let running = true;
  let outageNo = 0; // which outage a call can meet: 0 until the first is over, then 1
  const workers = Array.from({ length: 24 }, async (_, w) => {
    const project = projects[w % projects.length]!;
    while (running && errors.length === 0) {
      const n = ++issued[project]!; // numbered at the call: the order the chain must keep
      const era = outageNo;
      try {
        results.push({ project, n, outage: era, written: await writer.appendOrQueue(project, trace(n, { w })) });
      } catch (err) {
        errors.push(err);
      }
    }
  });
  const count = (to: 'db' | 'dlq') => results.filter((r) => r.written.persisted === to).length;
  const outage = async (mode: 'fast' | 'immediate') => {
    const dbBefore = count('db');
    await until('load before the outage', () => count('db') >= dbBefore + 300);
    await pg.stop(mode);
    const dlqBefore = count('dlq');
    await until(`traces dead-lettered during the ${mode} outage`, () => count('dlq') >= dlqBefore + 300 || errors.length > 0);
    t.equal(writer.status().queueing, true, `${mode}: the writer queues`);
    t.same(writer.degradedSubsystems(), ['trace_store']);
    await pg.start();
    const dbAfter = count('db');
    await until(`replay after the ${mode} outage and load on the database again`, () => count('db') >= dbAfter + 300 || errors.length > 0);
  };
  await outage('fast');
  outageNo = 1;
  await outage('immediate');
  running = false;
  await Promise.all(workers);
  await writer.flush();
  await until('the queue replayed', () => !writer.status().degraded);
  t.same(
    errors.map((e) => String(e)),
    [],
    'no append failed: each landed in the ledger or the queue',
  );

  const dlqd = results.filter((r) => r.written.persisted === 'dlq');
  t.ok(dlqd.length >= 600, `${dlqd.length} of ${results.length} traces went through the queue`);
  t.ok(
    dlqd.every((r) => r.written.sequenceNum === null && r.written.integrityHash === null),
    'a queued trace has no position yet',
  );
  for (const project of projects) {
    const rows = await ledgerRows(sql, project);
    t.same(
      rows.map((r) => Number(r.body!.n)),
      Array.from({ length: issued[project]! }, (_, i) => i + 1),
      `${project}: every trace exactly once, in the order append was called`,
    );
    const report = await checkChain(sql, project, 'traces');
    t.equal(report.intact, true, `${project} chain verifies ${JSON.stringify(report.first_broken)}`);
    t.equal(report.checked, issued[project]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // A COMMIT can reach the disk while its answer is lost with the connection (the immediate
    // shutdown): that batch is answered `dlq`, and the replay skips its queued copy because the id is
    // already in the ledger. Such a row is the direct write, before every row replayed from the same
    // outage (a later outage's lost answer comes after the earlier outage's replayed rows).
    const ofProject = results.filter((x) => x.project === project);
    const firstReplayed = [0, 1].map((o) =>
      Math.min(
        ...ofProject
          .filter((x) => x.outage === o && x.written.persisted === 'dlq')
          .map((x) => byId.get(x.written.id))
          .filter((row) => row !== undefined && 'occurred_at' in row.body!)
          .map((row) => Number(row!.sequence_num)),
      ),
    );
    const lostAnswer = (x: (typeof results)[number]) => {
      const row = byId.get(x.written.id);
      return row !== undefined && !('occurred_at' in row.body!) && Number(row.sequence_num) < firstReplayed[x.outage]!;
    };
    const wrong = ofProject.filter((x) => {
      const { written: w } = x;
      const row = byId.get(w.id);
      if (!row) return true;
      return w.persisted === 'db'
        ? Number(row.sequence_num) !== w.sequenceNum || 'occurred_at' in row.body!
        : row.body!.occurred_at !== w.occurredAt && !lostAnswer(x);
    });
    const lost = ofProject.filter((x) => x.written.persisted === 'dlq' && lostAnswer(x));
    if (lost.length > 0) t.comment(`${project}: ${lost.length} answered dlq whose COMMIT had landed (answer lost with the connection)`);
    t.same(wrong, [], `${project}: each answer names its row (db: its sequence number; dlq: its id, decision time kept as occurred_at)`);
  }
  t.equal(await fileSize(dlqFile(dir)), 0, 'the queue file is empty');
  t.same(writer.status(), { degraded: false, queueing: false, dlqDepth: 0, dlqBytes: 0, dlqWriteFailed: false });
});

async function fillQueue(t: Test, dir: string, entries: [string, number][]): Promise<TraceWritten[]> {
  const { writer } = await startWriter(t, await refusedSql(t), dir);
  const out: TraceWritten[] = [];
  for (const [project, n] of entries) out.push(await writer.appendOrQueue(project, trace(n)));
  await writer.close();
  return out;
}

t.test('a crash between the replay commit and the truncation duplicates nothing; new traces queue behind', async (t) => {
  const { sql } = await migratedDatabase(t);
  const dir = await tempDir(t);
  const queued = await fillQueue(t, dir, [
    ['p1', 1],
    ['p1', 2],
    ['p1', 3],
  ]);
  t.same(
    queued.map((q) => q.persisted),
    ['dlq', 'dlq', 'dlq'],
  );
  const snapshot = await fs.readFile(dlqFile(dir));

  const first = await startWriter(t, sql, dir);
  t.equal(first.writer.status().dlqDepth, 3, 'a queue left by an earlier run is picked up');
  await until('replay', () => !first.writer.status().degraded);
  await first.writer.close();
  // As if the daemon died after the replay committed and before it truncated the file.
  await fs.writeFile(dlqFile(dir), snapshot);
  const second = await startWriter(t, sql, dir);
  const late = await second.writer.appendOrQueue('p1', trace(4));
  t.equal(late.persisted, 'dlq', 'with a queue on disk, a new trace queues behind it even though the database is up');
  const strict = await second.writer.append('p1', trace(99)).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(strict instanceof TraceNotPersistedError, 'append() (ledger only) refuses rather than overtake the queue');
  await until('replay', () => !second.writer.status().degraded);
  const rows = await ledgerRows(sql, 'p1');
  t.same(
    rows.map((r) => r.body!.n),
    [1, 2, 3, 4],
    'nothing duplicated, order kept',
  );
  t.same(
    rows.map((r) => r.id),
    [...queued, late].map((q) => q.id),
    'ids assigned before the append are kept',
  );
  t.equal((await checkChain(sql, 'p1', 'traces')).intact, true);
  const after = await second.writer.appendOrQueue('p1', trace(5));
  t.equal(after.persisted, 'db');
  t.equal(after.sequenceNum, 5);
});

t.test('a torn last record and a damaged one are set aside and reported; the rest is replayed', async (t) => {
  const { sql } = await migratedDatabase(t);
  const dir = await tempDir(t);
  await fillQueue(t, dir, [
    ['p1', 1],
    ['p1', 2],
    ['p1', 3],
    ['p1', 4],
  ]);
  const text = (await fs.readFile(dlqFile(dir), 'utf8')).split('\n');
  text[1] = text[1]!.replace('"n":2', '"n":7'); // same length, checksum no longer matches
  const torn = text[0]!.slice(0, 90); // a write cut short: no line feed
  await fs.writeFile(dlqFile(dir), text.join('\n') + torn);

  const { writer, logs, setAside } = await startWriter(t, sql, dir);
  t.same(setAside, ['corrupt'], 'the torn record is reported at start');
  await until('replay', () => !writer.status().degraded);
  t.same(setAside, ['corrupt', 'corrupt'], 'the damaged record is reported at replay');
  t.match(logs.join(''), /torn last record/);
  t.match(logs.join(''), /damaged record set aside/);
  const rows = await ledgerRows(sql, 'p1');
  t.same(
    rows.map((r) => r.body!.n),
    [1, 3, 4],
  );
  t.equal((await checkChain(sql, 'p1', 'traces')).intact, true);
  const corrupt = (await fs.readFile(path.join(dir, 'dlq', 'traces.corrupt.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.equal(corrupt.length, 2, 'both kept for the operator');
  t.equal(Buffer.from(corrupt[0].raw_base64, 'base64').toString(), torn);
  t.match(corrupt[1].reason, /checksum/);
  t.equal(await fileSize(dlqFile(dir)), 0);
});

t.test('a record the database refuses at replay is set aside; the others keep their order', async (t) => {
  const { sql } = await migratedDatabase(t);
  const dir = await tempDir(t);
  const queued = await fillQueue(t, dir, [
    ['p1', 1],
    ['ghost', 1],
    ['p1', 2],
  ]);
  const { writer, setAside, logs } = await startWriter(t, sql, dir);
  await until('replay', () => !writer.status().degraded);
  t.same(
    (await ledgerRows(sql, 'p1')).map((r) => r.body!.n),
    [1, 2],
  );
  t.same(setAside, ['rejected']);
  t.match(logs.join(''), /refused by the database/);
  const [rejected] = (await fs.readFile(path.join(dir, 'dlq', 'traces.rejected.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  t.equal(rejected.id, queued[1]!.id);
  t.match(rejected.reason, /23503/);
});

t.test('an unwritable queue: TraceNotPersistedError (persisted none), nothing half-written', async (t) => {
  const sql = await refusedSql(t);
  const blocked = await tempDir(t);
  await fs.writeFile(path.join(blocked, 'dlq'), 'not a directory');
  const a = await startWriter(t, sql, blocked);
  const err = await a.writer.appendOrQueue('p1', trace(1)).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(err instanceof TraceNotPersistedError, 'typed error');
  t.equal((err as TraceNotPersistedError).persisted, 'none');
  t.same((err as TraceNotPersistedError).degradedSubsystems, ['trace_store', 'trace_dlq']);
  t.same(governanceHeaders(err as TraceNotPersistedError), {
    'X-Gateway-Status': 'degraded',
    'X-Gateway-Trace-Persisted': 'none',
    'X-Gateway-Degraded-Subsystems': 'trace_store,trace_dlq',
  });

  // Disk full: the file is /dev/full, every write fails with ENOSPC.
  const full = await tempDir(t);
  const b = await startWriter(t, sql, full);
  await fs.mkdir(path.join(full, 'dlq'), { recursive: true });
  await fs.symlink('/dev/full', dlqFile(full));
  const outcomes = await Promise.allSettled([1, 2, 3].map((n) => b.writer.appendOrQueue('p1', trace(n))));
  t.same(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected', 'rejected'],
  );
  const reason = (outcomes[0] as PromiseRejectedResult).reason as TraceNotPersistedError;
  t.ok(reason instanceof TraceNotPersistedError);
  t.equal(sqlState(reason.cause), 'ENOSPC');
  t.equal(b.writer.status().dlqWriteFailed, true);
  // Space again: the queue works, and holds only what was acknowledged.
  await fs.unlink(dlqFile(full));
  const ok = await b.writer.appendOrQueue('p1', trace(4));
  t.equal(ok.persisted, 'dlq');
  t.equal(b.writer.status().dlqWriteFailed, false);
  const lines = (await fs.readFile(dlqFile(full), 'utf8')).trim().split('\n');
  t.equal(lines.length, 1);
  t.match(lines[0], /"n":4/);
});

t.test('a constraint error or invalid input never reaches the queue', async (t) => {
  const { sql } = await migratedDatabase(t);
  const dir = await tempDir(t);
  const { writer } = await startWriter(t, sql, dir);
  const fk = await writer.appendOrQueue('no-such-project', trace(1)).then(
    () => null,
    (e: unknown) => e,
  );
  t.equal(sqlState(fk), '23503', 'refused as before: foreign key');
  t.notOk(fk instanceof TraceNotPersistedError);
  t.equal(await fileSize(dlqFile(dir)), 0, 'nothing queued');
  t.equal(writer.status().degraded, false);

  // With the database unreachable, input PostgreSQL would refuse is still refused, not queued.
  const down = await startWriter(t, await refusedSql(t), await tempDir(t));
  const nul = await down.writer.appendOrQueue('p1', { traceType: 'TEST', decision: 'PASSED', content: { prompt: 'nul \u0000' } }).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(nul instanceof TypeError);
  const badId = await down.writer.appendOrQueue('p1', { ...trace(1), id: 'not-a-uuid' }).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(badId instanceof TypeError);
  t.equal(down.writer.status().dlqDepth, 0);
});
