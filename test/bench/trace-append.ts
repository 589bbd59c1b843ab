// Trace appends for one hot project at 64 concurrent writers, durable (synchronous_commit on):
// the group-commit writer against the baseline of one transaction per append, in the same run,
// on the same database. Both chains are re-verified afterwards.
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { connect, type Sql } from '../../daemon/db/connect.js';
import { migrate } from '../../daemon/db/migrate.js';
import { appendTraces } from '../../daemon/ledger/append.js';
import { TraceWriter } from '../../daemon/ledger/trace-writer.js';
import { checkChain } from '../../daemon/ledger/check-chain.js';
import { createProjectRows } from '../../daemon/project/bootstrap.js';
import type { TraceInput } from '../../daemon/ledger/streams.js';
import { withDatabase } from '../helpers/db.js';

const WRITERS = 64;
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

interface Result {
  name: string;
  appends: number;
  perSecond: number;
  p50: number;
  p99: number;
  intact: boolean;
}

function input(i: number): TraceInput {
  return {
    traceType: 'BENCH',
    decision: 'PASSED',
    reason: 'bench',
    environment: 'prod',
    content: { prompt: `benchmark prompt number ${i}`, metadata: { i } },
  };
}

async function run(name: string, sql: Sql, projectId: string, appendOne: (i: number) => Promise<unknown>): Promise<Result> {
  const latencies: number[] = [];
  const deadline = Date.now() + SECONDS * 1000;
  let counter = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (Date.now() < deadline) {
        const t0 = process.hrtime.bigint();
        await appendOne(counter++);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const report = await checkChain(sql, projectId, 'traces');
  return {
    name,
    appends: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
    intact: report.intact && report.checked === latencies.length,
  };
}

export async function benchTraceAppend(adminUrl: string): Promise<void> {
  const name = 'gwbench_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const sql = connect(withDatabase(adminUrl, name), { max: 20, instanceId: 'bench' });
  try {
    await migrate(sql);
    await sql.begin(async (tx) => {
      await createProjectRows(tx, 'naive', 'naive');
      await createProjectRows(tx, 'grouped', 'grouped');
    });
    const [{ synchronous_commit: syncCommit }] = await sql<{ synchronous_commit: string }[]>`show synchronous_commit`;
    const naive = await run('one transaction per append (baseline)', sql, 'naive', (i) =>
      sql.begin((tx) => appendTraces(tx, 'naive', [input(i)])),
    );
    const writer = new TraceWriter(sql, 500);
    const grouped = await run('group commit (TraceWriter)', sql, 'grouped', (i) => writer.append('grouped', input(i)));
    console.log(`\ntrace appends, one hot project, ${WRITERS} concurrent writers, ${SECONDS}s each, synchronous_commit=${syncCommit}`);
    for (const r of [naive, grouped]) {
      console.log(
        `  ${r.name.padEnd(40)} ${r.perSecond.toFixed(0).padStart(7)} appends/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  chain ${r.intact ? 'verified' : 'BROKEN'}`,
      );
    }
    console.log(`  ratio group commit / baseline: ${(grouped.perSecond / naive.perSecond).toFixed(1)}x`);
    if (!naive.intact || !grouped.intact) process.exitCode = 1;
  } finally {
    await sql.end({ timeout: 1 });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
