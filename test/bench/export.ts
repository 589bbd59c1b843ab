// CSV export through the real gatewayd, run as a child process: rows per second and the daemon's
// peak RSS (VmHWM) for 20,000 and 200,000 rows, against the baseline of reading the same rows with
// a plain cursor and no HTTP or CSV. The client streams the response and keeps only counts, and it
// lives in this process, so the daemon's memory is the export's alone. The daemon's CPU time per
// row is printed too: on a shared machine it moves far less than rows/s. Linux only (/proc).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { withDatabase } from '../helpers/db.js';
import { spawnDaemon, waitForLog } from '../helpers/spawn-daemon.js';

const SIZES = [20_000, 200_000];
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function seed(sql: postgres.Sql, projectId: string, from: number, count: number): Promise<void> {
  // Rows are inserted directly (the export does not verify the chain); hashes are placeholders.
  await sql`
    insert into traces (id, project_id, sequence_num, created_at, trace_type, decision, reason, action_name, environment, agent_id, content_hash, prev_hash, integrity_hash)
    select gen_random_uuid(), ${projectId}, s, now() - make_interval(secs => s), 'BENCH', case when s % 5 = 0 then 'MODIFIED' else 'PASSED' end,
           'bench row', 'verify', 'prod', null, 'sha256:' || md5(s::text), 'sha256:' || md5((s - 1)::text), 'sha256:' || md5(s::text || 'x')
    from generate_series(${from}::int, ${from + count - 1}::int) s`;
  await sql`
    insert into trace_content (trace_id, project_id, created_at, salt, body)
    select id, project_id, created_at, '\\x00'::bytea, jsonb_build_object('display', 'a prompt of ordinary length for row ' || sequence_num)
    from traces where project_id = ${projectId} and sequence_num between ${from}::int and ${from + count - 1}::int`;
}

/** A /proc/<pid>/status field in bytes (VmRSS now, VmHWM the peak since start). */
async function procStatusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
  if (!m) throw new Error(`no ${field} in /proc/${pid}/status`);
  return Number(m[1]) * 1024;
}

/** CPU seconds a process has used (utime + stime; USER_HZ is 100 on Linux). */
async function cpuSeconds(pid: number): Promise<number> {
  const fields = (await fs.readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** GETs the export and counts bytes and records as they arrive; nothing is kept. */
function streamCount(url: string, token: string): Promise<{ status: number; bytes: number; lines: number; last: string }> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { authorization: `Bearer ${token}` }, agent: false }, (res) => {
      let bytes = 0;
      let lines = 0;
      let tail = Buffer.alloc(0);
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines += 1;
        tail = Buffer.concat([tail, chunk.subarray(-200)]).subarray(-200);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, lines, last: tail.toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function cursorRead(sql: postgres.Sql): Promise<number> {
  const t0 = performance.now();
  let n = 0;
  for await (const rows of sql`select t.*, c.body from traces t left join trace_content c on c.trace_id = t.id where t.project_id = 'default' order by t.sequence_num`.cursor(
    1000,
  ))
    n += rows.length;
  return n / ((performance.now() - t0) / 1000);
}

interface SizeResult {
  size: number;
  perSecond: number[];
  basePerSecond: number[];
  cpuPerRow: number[];
  bytes: number;
  startRss: number;
  peakRss: number;
  rowsOk: boolean;
}

/** One fresh daemon per size, so that its VmHWM is this size's peak (start-up included, the same for both). */
async function measure(url: string, dataDir: string, token: string, sql: postgres.Sql, size: number): Promise<SizeResult> {
  const daemon = spawnDaemon({
    DATABASE_URL: url,
    GATEWAY_DATA_DIR: dataDir,
    GATEWAY_EXPORT_ROW_CAP: '1000000',
    GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400',
    GATEWAY_RETENTION_INTERVAL_SECONDS: '86400',
  });
  try {
    const base = await daemon.url;
    await waitForLog(daemon, /secret rules compiled/); // start-up work is not the export's
    const pid = daemon.child.pid!;
    const startRss = await procStatusBytes(pid, 'VmRSS');
    const result: SizeResult = { size, perSecond: [], basePerSecond: [], cpuPerRow: [], bytes: 0, startRss, peakRss: 0, rowsOk: true };
    // Interleaved, so that both see the same load on a shared machine.
    for (let run = 0; run < RUNS; run++) {
      result.basePerSecond.push(await cursorRead(sql));
      const cpu0 = await cpuSeconds(pid);
      const t0 = performance.now();
      const got = await streamCount(`${base}/api/v1/export?format=csv`, token);
      result.perSecond.push((got.lines - 1) / ((performance.now() - t0) / 1000));
      result.cpuPerRow.push(((await cpuSeconds(pid)) - cpu0) / (got.lines - 1));
      result.bytes = got.bytes;
      if (got.status !== 200 || got.lines - 1 !== size) {
        console.log(`  expected ${size} rows with status 200, got ${got.lines - 1} with ${got.status}`);
        result.rowsOk = false;
      }
    }
    result.peakRss = await procStatusBytes(pid, 'VmHWM');
    return result;
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exit;
  }
}

/** The daemon migrates, creates project `default` and writes the admin token on its first start. */
async function bootstrapped(url: string, dataDir: string): Promise<string> {
  const daemon = spawnDaemon({ DATABASE_URL: url, GATEWAY_DATA_DIR: dataDir });
  try {
    await daemon.url;
  } finally {
    daemon.child.kill('SIGTERM');
    await daemon.exit;
  }
  return (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
}

const mb = (bytes: number) => (bytes / 1e6).toFixed(0);

export async function benchExport(adminUrl: string): Promise<void> {
  const name = 'gwbench_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-bench-export-'));
  try {
    const token = await bootstrapped(url, dataDir);
    console.log(
      `\nCSV export through gatewayd (child process), against a plain cursor read of the same rows; median of ${RUNS} runs [min-max]`,
    );
    const results: SizeResult[] = [];
    let seeded = 0;
    for (const size of SIZES) {
      await seed(sql, 'default', seeded + 1, size - seeded);
      seeded = size;
      await sql`vacuum analyze traces`;
      await sql`vacuum analyze trace_content`;
      const r = await measure(url, dataDir, token, sql, size);
      results.push(r);
      const perSecond = median(r.perSecond);
      const basePerSecond = median(r.basePerSecond);
      console.log(
        `  ${String(size).padStart(7)} rows: export ${perSecond.toFixed(0).padStart(7)} rows/s [${Math.min(...r.perSecond).toFixed(0)}-${Math.max(...r.perSecond).toFixed(0)}] (${(r.bytes / 1e6).toFixed(1)} MB), `
          + `cursor read ${basePerSecond.toFixed(0)} rows/s [${Math.min(...r.basePerSecond).toFixed(0)}-${Math.max(...r.basePerSecond).toFixed(0)}], ratio ${(perSecond / basePerSecond).toFixed(2)}; `
          + `daemon peak RSS ${mb(r.peakRss)} MB (${mb(r.startRss)} MB after start), daemon CPU ${(median(r.cpuPerRow) * 1e6).toFixed(1)} us/row`,
      );
      if (!r.rowsOk) process.exitCode = 1;
    }
    const [small, large] = results as [SizeResult, SizeResult];
    console.log(
      `  peak RSS ${SIZES[1]} / ${SIZES[0]} rows: ${(large.peakRss / small.peakRss).toFixed(2)} (target at most 1.20); `
        + `slowest median ${Math.min(...results.map((r) => median(r.perSecond))).toFixed(0)} rows/s (target at least 100000)`,
    );
  } finally {
    await sql.end();
    await fs.rm(dataDir, { recursive: true, force: true });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
