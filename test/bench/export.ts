// CSV export through the real daemon: rows per second and the daemon process's peak RSS for
// 20,000 and 200,000 rows (memory must stay flat: the export streams from a cursor), against the
// baseline of reading the same rows from the database with the same cursor and no HTTP or CSV.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startGateway } from '../../daemon/app.js';
import { loadConfig } from '../../daemon/config.js';
import { createLogger } from '../../daemon/log.js';
import { withDatabase } from '../helpers/db.js';

const SIZES = [20_000, 200_000];

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

async function peakDuring<T>(work: () => Promise<T>): Promise<{ result: T; peakRss: number }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => { peak = Math.max(peak, process.memoryUsage().rss); }, 5);
  try {
    const result = await work();
    return { result, peakRss: Math.max(peak, process.memoryUsage().rss) };
  } finally {
    clearInterval(timer);
  }
}

export async function benchExport(adminUrl: string): Promise<void> {
  const name = 'gwbench_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(adminUrl, name);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-bench-export-'));
  const gateway = await startGateway(loadConfig({ DATABASE_URL: url, GATEWAY_DATA_DIR: dataDir, GATEWAY_LISTEN: '127.0.0.1:0', GATEWAY_EXPORT_ROW_CAP: '1000000' }), createLogger('warn'));
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  try {
    const token = (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
    console.log('\nCSV export through the daemon (in this process), against a plain cursor read of the same rows');
    let seeded = 0;
    for (const size of SIZES) {
      await seed(sql, 'default', seeded + 1, size - seeded);
      seeded = size;
      await sql`vacuum analyze traces`.catch(() => undefined);
      global.gc?.();
      const base = await peakDuring(async () => {
        const t0 = performance.now();
        let n = 0;
        for await (const rows of sql`select t.*, c.body from traces t left join trace_content c on c.trace_id = t.id where t.project_id = 'default' order by t.sequence_num`.cursor(1000)) n += rows.length;
        return { n, ms: performance.now() - t0 };
      });
      global.gc?.();
      const rssBefore = process.memoryUsage().rss;
      const run = await peakDuring(async () => {
        const t0 = performance.now();
        const res = await fetch(`${gateway.url}/api/v1/export?format=csv`, { headers: { authorization: `Bearer ${token}` } });
        let bytes = 0;
        let lines = 0;
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          bytes += chunk.length;
          for (const b of chunk) if (b === 10) lines += 1;
        }
        return { rows: lines - 1, bytes, ms: performance.now() - t0 };
      });
      const perSecond = run.result.rows / (run.result.ms / 1000);
      const basePerSecond = base.result.n / (base.result.ms / 1000);
      console.log(`  ${String(size).padStart(7)} rows: export ${perSecond.toFixed(0).padStart(7)} rows/s (${(run.result.bytes / 1e6).toFixed(1)} MB), ` +
        `cursor read ${basePerSecond.toFixed(0)} rows/s, ratio ${(perSecond / basePerSecond).toFixed(2)}; ` +
        `peak RSS ${(run.peakRss / 1e6).toFixed(0)} MB (${((run.peakRss - rssBefore) / 1e6).toFixed(0)} MB above the start)`);
      if (run.result.rows !== size) { console.log(`  expected ${size} rows, got ${run.result.rows}`); process.exitCode = 1; }
    }
  } finally {
    await sql.end();
    await gateway.close();
    await fs.rm(dataDir, { recursive: true, force: true });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
