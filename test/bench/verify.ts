// POST /api/v1/verify through a real daemon (in this process, over loopback HTTP) at concurrency 1
// and 32, against the baseline the issue names: the same database's durable single-row insert
// rate (one INSERT per transaction, synchronous_commit on, 32 writers), measured in the same run,
// and the same INSERT by pgbench (issue 27 names its rate: the database without a Node client).
// The prompt mix is realistic: clean prompts, personal data (MODIFIED), a secret (BLOCKED).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { startGateway } from '../../daemon/app.js';
import { loadConfig } from '../../daemon/config.js';
import { createLogger } from '../../daemon/log.js';
import { withDatabase } from '../helpers/db.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PROMPTS = [
  'Summarise the attached meeting notes in five bullet points and list the open action items with owners.',
  'Draft a polite reply to jane.doe@acme-corp.de confirming the delivery date of order 48213, and mention our hotline +49 30 901820.',
  'Why does the build fail with exit code 137 on the CI runner? The container has 2 GB of memory.',
  'Refund the customer whose card 4556 7375 8689 9855 was charged twice; IBAN for the transfer: DE89 3704 0044 0532 0130 00.',
  'deploy with aws_access_key_id=AKIAZ3MSJV4WWQ5RMNBV and region eu-central-1',
  'Translate into French: the quarterly results exceeded expectations in every region except APAC.',
];

interface Result {
  perSecond: number;
  p50: number;
  p99: number;
  count: number;
  decisions: Record<string, number>;
}

async function load(concurrency: number, call: (i: number) => Promise<string>): Promise<Result> {
  const latencies: number[] = [];
  const decisions: Record<string, number> = {};
  const deadline = Date.now() + SECONDS * 1000;
  let counter = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < deadline) {
        const t0 = process.hrtime.bigint();
        const d = await call(counter++);
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        decisions[d] = (decisions[d] ?? 0) + 1;
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / elapsed,
    count: latencies.length,
    decisions,
    p50: latencies[Math.floor(latencies.length * 0.5)]!,
    p99: latencies[Math.floor(latencies.length * 0.99)]!,
  };
}

const fmt = (r: Result) => `${r.perSecond.toFixed(0).padStart(6)}/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  (${r.count})`;

export async function benchVerify(adminUrl: string): Promise<void> {
  const name = 'gwbench_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(adminUrl, name);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-bench-'));
  const gateway = await startGateway(
    loadConfig({
      DATABASE_URL: url,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_LISTEN: '127.0.0.1:0',
      GATEWAY_LOG_LEVEL: 'silent',
    }),
    createLogger('silent'),
  );
  try {
    const token = (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
    // The rate limit is part of the product, not of this measurement.
    await gateway.sql`update projects set rate_limit_per_minute = 100000000`;
    const sql = postgres(url, { max: 32, onnotice: () => {} });
    await sql`create table bench_insert (id bigserial primary key, body text not null)`;
    const baseline = await load(32, async (i) => {
      await sql`insert into bench_insert (body) values (${PROMPTS[i % PROMPTS.length]!})`;
      return 'INSERT';
    });
    await sql.end();
    const pgbench = await pgbenchInserts(url, dataDir);

    const call = async (i: number): Promise<string> => {
      const res = await fetch(`${gateway.url}/api/v1/verify`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ prompt: PROMPTS[i % PROMPTS.length] }),
      });
      const body = (await res.json()) as { decision: string };
      return body.decision;
    };
    for (let i = 0; i < 20; i += 1) await call(i); // warm-up: JIT, detector set-up, connections
    const one = await load(1, call);
    const many = await load(32, call);

    process.stdout.write(`\nverify (${SECONDS} s each; ${os.cpus().length} cores; daemon, client and PostgreSQL on one machine)\n`);
    process.stdout.write(`  durable single-row INSERT, 32 writers  ${fmt(baseline)}\n`);
    process.stdout.write(`  verify, concurrency 1                  ${fmt(one)}\n`);
    process.stdout.write(`  verify, concurrency 32                 ${fmt(many)}\n`);
    process.stdout.write(`  decisions at 32: ${JSON.stringify(many.decisions)}\n`);
    process.stdout.write(`  ratio verify@32 / insert@32: ${(many.perSecond / baseline.perSecond).toFixed(2)} (target >= 0.5)\n`);
    if (pgbench === null) process.stdout.write('  pgbench not found: its single-row INSERT rate (issue 27) not measured\n');
    else
      process.stdout.write(
        `  pgbench single-row INSERT, 32 clients  ${pgbench.toFixed(0).padStart(6)}/s; ratio verify@32 / pgbench: ${(many.perSecond / pgbench).toFixed(3)} (issue 27: >= 0.25)\n`,
      );
  } finally {
    await gateway.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

/**
 * The same durable single-row INSERT as pgbench makes it (32 clients, 2 threads, SECONDS): the
 * database's own rate without a Node.js client in the way, the baseline issue 27 names. Null when
 * pgbench (Debian: postgresql-client) is not installed.
 */
async function pgbenchInserts(url: string, dir: string): Promise<number | null> {
  const script = path.join(dir, 'insert.sql');
  await fs.writeFile(script, "insert into bench_insert (body) values ('a prompt of ordinary length, about as long as the others');\n");
  const run = spawnSync('pgbench', ['-n', '-f', script, '-c', '32', '-j', '2', '-T', String(SECONDS), url], { encoding: 'utf8' });
  if (run.error) return null;
  const tps = /tps = ([\d.]+)/.exec(run.stdout)?.[1];
  if (tps === undefined) throw new Error(`pgbench: ${run.stderr || run.stdout}`);
  return Number(tps);
}
