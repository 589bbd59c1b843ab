// GET /api/v1/traces at scale: seeds BENCH_TRACES traces (default 10,000,000) with set-based SQL,
// then times every filter shape through the daemon (p50/p99) and prints each shape's plan.
// The seed bypasses the ledger writer: ids are md5-derived and hashes placeholders, so the chain
// does NOT verify (the list never checks it); keys and indexes are dropped and rebuilt around it.
// BENCH_KEEP_DB=1 keeps the seeded database under a fixed name and reuses it on the next run.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres, { type PendingQuery, type Row } from 'postgres';
import { startGateway } from '../../daemon/app.js';
import { loadConfig } from '../../daemon/config.js';
import { connect, type Sql } from '../../daemon/db/connect.js';
import { migrate } from '../../daemon/db/migrate.js';
import { createLogger } from '../../daemon/log.js';
import { createProjectRows } from '../../daemon/project/bootstrap.js';
import { insertCredential } from '../../daemon/project/keys.js';
import { listQueries, lookupQuery } from '../../daemon/traces/list.js';
import { traceListQuery } from '../../shared/trace-schemas.js';
import { withDatabase } from '../helpers/db.js';

const TRACES = Number(process.env.BENCH_TRACES ?? 10_000_000);
const KEEP = process.env.BENCH_KEEP_DB === '1';
const MAX_REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const CASE_SECONDS = Number(process.env.BENCH_CASE_SECONDS ?? 20);
const CHUNK = 500_000;
const DAYS = 30;
const AGENTS = 50;
const PROJECT = 'default';
const OTHER = 'other'; // a second project holding 10% of the rows

/** Agent k of the seed (k = 0 is the busiest, ~14% of agent traffic; k = 49 the quietest, ~1%). */
export function agentId(k: number): string {
  return (
    'agt'
    + createHash('md5')
      .update('agent' + k)
      .digest('hex')
      .slice(0, 21)
  );
}

async function seedChunk(
  conn: postgres.Sql,
  table: 'traces' | 'trace_content',
  p: string,
  n: number,
  lo: number,
  hi: number,
  oldest: Date,
): Promise<void> {
  // Five consecutive rows share a timestamp, as a group-commit batch does.
  const at = conn`date_trunc('milliseconds', ${oldest}::timestamptz + make_interval(secs => ((s - 1) / 5 * 5) * ${(DAYS * 86400) / n}::float8))`;
  const u = (k: number) => conn`((hashint8(s * 8 + ${k})::bigint & 1048575) / 1048576.0)`;
  if (table === 'trace_content') {
    await conn`
      insert into trace_content (trace_id, project_id, created_at, salt, body)
      select md5(${p} || ':' || s)::uuid, ${p}, ${at}, decode(md5(s::text), 'hex'), jsonb_build_object(
        'display', 'Summarise support ticket #' || s || ' for the customer and draft a short, friendly reply.',
        'metadata', jsonb_build_object('source', 'api', 'client', 'web'), 'details', jsonb_build_object('score', round(${u(5)}, 3)))
      from generate_series(${lo}::bigint, ${hi}::bigint) s`;
    return;
  }
  await conn`
    insert into traces (id, project_id, sequence_num, created_at, trace_type, decision, reason, action_name, environment, agent_id, content_hash, prev_hash, integrity_hash)
    select md5(${p} || ':' || s)::uuid, ${p}, s, ${at}, case when r.a < 0.85 then 'VERIFY' else 'MCP_TOOL_CALL' end, d.decision,
      case d.decision when 'FLAGGED' then 'injection score 0.62' when 'MODIFIED' then 'pii redacted: EMAIL' when 'BLOCKED' then 'secret detected: aws key' when 'ERROR' then 'detector timeout' end,
      case when r.a < 0.85 then 'verify' else 'tools/call' end, case when r.e < 0.85 then 'prod' else 'dev' end,
      case when r.g < 0.1 then null else 'agt' || substr(md5('agent' || floor(${AGENTS} * r.k * r.k)::int), 1, 21) end,
      'sha256:' || md5('c' || s) || md5('C' || s), 'sha256:' || md5('i' || (s - 1)) || md5('I' || (s - 1)), 'sha256:' || md5('i' || s) || md5('I' || s)
    from generate_series(${lo}::bigint, ${hi}::bigint) s
    cross join lateral (select ${u(1)} as a, ${u(2)} as e, ${u(3)} as g, ${u(4)} as k, ${u(6)} as dd) r
    cross join lateral (select case when r.dd < 0.70 then 'PASSED' when r.dd < 0.80 then 'FLAGGED' when r.dd < 0.90 then 'MODIFIED'
      when r.dd < 0.98 then 'BLOCKED' else 'ERROR' end as decision) d`;
}

/** One loop per table on its own connection, so traces and content are written side by side. */
async function seedTable(sql: postgres.Sql, table: 'traces' | 'trace_content', oldest: Date, started: number): Promise<void> {
  const conn = await sql.reserve();
  try {
    await conn`set synchronous_commit = off`;
    const counts = [
      [PROJECT, Math.round(TRACES * 0.9)],
      [OTHER, TRACES - Math.round(TRACES * 0.9)],
    ] as const;
    for (const [p, n] of counts) {
      for (let lo = 1; lo <= n; lo += CHUNK) {
        const hi = Math.min(n, lo + CHUNK - 1);
        await seedChunk(conn, table, p, n, lo, hi, oldest);
        if (table === 'traces')
          console.log(
            `  ${p}: ${hi.toLocaleString('en')} / ${n.toLocaleString('en')} traces (${((performance.now() - started) / 1000).toFixed(0)} s)`,
          );
      }
    }
  } finally {
    conn.release();
  }
}

/**
 * Drops the keys and indexes of the seeded tables (foreign keys first) and returns the statements
 * that put them back, read from the catalog: bulk rows then build each index once, sorted, instead
 * of inserting 10M random uuids into a b-tree far larger than shared_buffers.
 */
async function dropIndexes(sql: postgres.Sql): Promise<string[]> {
  const tables = ['traces', 'trace_content', 'trace_actions'];
  const constraints = await sql<{ tbl: string; name: string; def: string; fk: boolean }[]>`
    select conrelid::regclass::text as tbl, conname as name, pg_get_constraintdef(oid) as def, contype = 'f' as fk from pg_constraint
    where contype in ('p', 'u', 'f') and (conrelid = any(${tables}::regclass[]) or confrelid = any(${tables}::regclass[]))
    order by contype = 'f' desc`;
  const indexes = await sql<{ name: string; def: string }[]>`
    select indexname as name, indexdef as def from pg_indexes where tablename = any(${tables}) and indexname not in (select conname from pg_constraint)`;
  for (const c of constraints) await sql.unsafe(`alter table ${c.tbl} drop constraint ${c.name}`);
  for (const i of indexes) await sql.unsafe(`drop index ${i.name}`);
  return [
    ...constraints.filter((c) => !c.fk).map((c) => `alter table ${c.tbl} add constraint ${c.name} ${c.def}`),
    ...indexes.map((i) => i.def),
    ...constraints.filter((c) => c.fk).map((c) => `alter table ${c.tbl} add constraint ${c.name} ${c.def}`),
  ];
}

async function seed(url: string): Promise<number> {
  const sql = postgres(url, { max: 3, onnotice: () => {} });
  try {
    const started = performance.now();
    const oldest = new Date(Date.now() - DAYS * 86_400_000);
    const rebuild = await dropIndexes(sql);
    await Promise.all([seedTable(sql, 'traces', oldest, started), seedTable(sql, 'trace_content', oldest, started)]);
    const conn = await sql.reserve();
    await conn`set maintenance_work_mem = '512MB'`;
    for (const statement of rebuild) await conn.unsafe(statement);
    conn.release();
    console.log(`  rows in, keys and indexes rebuilt (${((performance.now() - started) / 1000).toFixed(0)} s)`);
    await sql`
      insert into trace_actions (id, project_id, trace_id, action, justification, actor_id, created_at)
      select gen_random_uuid(), project_id, id, 'JUSTIFIED', 'reviewed with the data owner', 'reviewer', created_at + interval '10 minutes'
      from traces where decision = 'FLAGGED' and sequence_num % 50 = 0`;
    const seeded = (performance.now() - started) / 1000;
    console.log(`  seeded in ${seeded.toFixed(0)} s; vacuum analyze ...`);
    // What autovacuum does for an append-only table: visibility map (index-only scans) and statistics.
    await sql`vacuum (analyze) traces, trace_content, trace_actions`;
    return (performance.now() - started) / 1000;
  } finally {
    await sql.end();
  }
}

/** A migrated database with both projects and TRACES rows; reused under a fixed name when kept. */
async function prepareDatabase(admin: postgres.Sql, adminUrl: string, name: string): Promise<string> {
  const url = withDatabase(adminUrl, name);
  const [marker] = await admin<
    { note: string | null }[]
  >`select shobj_description(oid, 'pg_database') as note from pg_database where datname = ${name}`;
  if (marker?.note?.startsWith('seeded')) {
    console.log(`reusing database ${name} (${marker.note})`);
    return url;
  }
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const sql = connect(url, { max: 2, instanceId: 'bench' });
  try {
    await migrate(sql);
    await sql.begin(async (tx) => {
      await createProjectRows(tx, PROJECT, 'bench');
      await createProjectRows(tx, OTHER, 'other');
    });
  } finally {
    await sql.end();
  }
  console.log(`seeding ${TRACES.toLocaleString('en')} traces into ${name}`);
  const seconds = await seed(url);
  console.log(`  seed + vacuum analyze: ${seconds.toFixed(0)} s`);
  await admin.unsafe(`comment on database ${name} is 'seeded ${TRACES} traces at ${new Date().toISOString()} in ${seconds.toFixed(0)} s'`);
  return url;
}

type PlanNode = Record<string, unknown> & { Plans?: PlanNode[] };

/** Node types with the index (or relation) each scan uses, nested as in the plan. */
function planShape(node: PlanNode): string {
  const index = node['Index Name'] ?? node['Relation Name'];
  const label = `${node['Node Type']}${node['Join Type'] && node['Join Type'] !== 'Inner' ? ` ${node['Join Type']}` : ''}${index ? ` ${index}` : ''}`;
  return node.Plans?.length ? `${label}(${node.Plans.map(planShape).join(', ')})` : label;
}

async function explain(sql: Sql, query: unknown): Promise<string> {
  const [row] = await sql<
    { 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }[]
  >`explain (analyze, buffers, format json) ${query as PendingQuery<Row[]>}`;
  const { Plan: plan, 'Execution Time': ms } = row!['QUERY PLAN'][0];
  const buffers = Number(plan['Shared Hit Blocks'] ?? 0) + Number(plan['Shared Read Blocks'] ?? 0);
  return `${ms.toFixed(1)} ms, ${buffers} buffers: ${planShape(plan)}`;
}

interface Case {
  label: string;
  query: () => string;
}

function cases(newest: Date, ids: string[]): Case[] {
  const iso = (ms: number) => encodeURIComponent(new Date(newest.getTime() - ms).toISOString());
  const day = 86_400_000;
  let next = 0;
  const fixed = (label: string, q: string): Case => ({ label, query: () => q });
  return [
    fixed('default (prod, no time filter)', ''),
    ...['24h', '7d', '30d', 'all'].map((r) => fixed(`time_range=${r}`, `time_range=${r}`)),
    fixed('decision=PASSED (70%)', 'decision=PASSED'),
    fixed('decision=ERROR (2%)', 'decision=ERROR'),
    fixed('agent_id busiest (~14%)', `agent_id=${agentId(0)}`),
    fixed('agent_id quietest (~1%)', `agent_id=${agentId(AGENTS - 1)}`),
    fixed('decision+agent+7d', `decision=BLOCKED&agent_id=${agentId(AGENTS - 1)}&time_range=7d`),
    fixed('environment=dev', 'environment=dev'),
    fixed('since/until 1h window, 15d ago', `since=${iso(15 * day)}&until=${iso(15 * day - 3_600_000)}`),
    fixed('since/until 3d window, 10d ago', `since=${iso(10 * day)}&until=${iso(7 * day)}`),
    { label: 'id lookup', query: () => `id=${ids[next++ % ids.length]}` },
    fixed('offset=100000', 'offset=100000'),
    fixed('offset=100000 decision=PASSED', 'offset=100000&decision=PASSED'),
    fixed('offset=1000000', 'offset=1000000'),
    fixed('limit=1000', 'limit=1000'),
  ];
}

async function timeCase(
  base: string,
  token: string,
  c: Case,
): Promise<{ p50: number; p99: number; n: number; total: number; rows: number }> {
  const latencies: number[] = [];
  let last: { total: number; traces: unknown[] } = { total: 0, traces: [] };
  const deadline = performance.now() + CASE_SECONDS * 1000;
  for (let i = -2; i < MAX_REQUESTS && (i < 5 || performance.now() < deadline); i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/traces?${c.query()}`, { headers: { authorization: `Bearer ${token}` } });
    last = (await res.json()) as typeof last;
    if (res.status !== 200) throw new Error(`${c.label}: HTTP ${res.status} ${JSON.stringify(last)}`);
    if (i >= 0) latencies.push(performance.now() - t0); // the first two warm the plan cache
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!;
  return { p50: at(0.5), p99: at(0.99), n: latencies.length, total: last.total, rows: last.traces.length };
}

async function measure(url: string): Promise<void> {
  const sql = connect(url, { max: 2, instanceId: 'bench' });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-bench-list-'));
  try {
    const t0 = performance.now();
    const applied = await migrate(sql);
    if (applied.length)
      console.log(`migrations applied to the seeded database: ${applied.join(', ')} in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    await sql`update projects set rate_limit_per_minute = 1000000000 where id = ${PROJECT}`;
    const { token } = await sql.begin((tx) =>
      insertCredential(tx, PROJECT, { kind: 'project_key', name: 'bench', role: 'viewer', userId: null }, null),
    );
    const [{ newest }] = await sql<
      { newest: Date }[]
    >`select max(created_at) as newest from traces where project_id = ${PROJECT} and environment = 'prod'`;
    const ids = (await sql<{ id: string }[]>`select id from traces tablesample system (0.05) where project_id = ${PROJECT} limit 500`).map(
      (r) => r.id,
    );
    console.log(
      `newest trace ${((Date.now() - newest.getTime()) / 60_000).toFixed(0)} min old; ${MAX_REQUESTS} requests or ${CASE_SECONDS} s per case, sequential; load average ${os.loadavg()[0]!.toFixed(1)}`,
    );
    await sizes(sql);
    const gateway = await startGateway(
      loadConfig({ DATABASE_URL: url, GATEWAY_DATA_DIR: dataDir, GATEWAY_LISTEN: '127.0.0.1:0' }),
      createLogger('warn'),
    );
    try {
      for (const c of cases(newest, ids)) {
        const r = await timeCase(gateway.url, token, c);
        console.log(
          `\n  ${c.label.padEnd(32)} p50 ${r.p50.toFixed(1).padStart(8)} ms  p99 ${r.p99.toFixed(1).padStart(8)} ms  n=${r.n}  total=${r.total} rows=${r.rows}`,
        );
        const q = traceListQuery.parse(Object.fromEntries(new URLSearchParams(c.query())));
        if (q.id !== undefined) {
          console.log(`    lookup: ${await explain(sql, lookupQuery(sql, PROJECT, q.id))}`);
          continue;
        }
        const { page, count } = listQueries(sql, PROJECT, q);
        console.log(`    page:  ${await explain(sql, page)}`);
        console.log(`    count: ${await explain(sql, count)}`);
      }
    } finally {
      await gateway.close();
    }
  } finally {
    await sql.end();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

async function sizes(sql: Sql): Promise<void> {
  const rows = await sql<{ name: string; mb: number }[]>`
    select c.relname as name, (pg_relation_size(c.oid) / 1048576)::int as mb from pg_class c
    where c.relname like 'trace%' and c.relkind in ('r', 'i') and pg_relation_size(c.oid) > 1048576 order by 1`;
  console.log('sizes (MB): ' + rows.map((r) => `${r.name} ${r.mb}`).join(', '));
}

export async function benchTraceList(adminUrl: string): Promise<void> {
  const name = KEEP ? `gwbench_trace_list_${TRACES}` : 'gwbench_list_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    console.log(`\nGET /api/v1/traces over ${TRACES.toLocaleString('en')} traces (project ${PROJECT}: 90%, ${OTHER}: 10%)`);
    await measure(await prepareDatabase(admin, adminUrl, name));
  } finally {
    if (!KEEP) await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
