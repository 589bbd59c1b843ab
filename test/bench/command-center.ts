// GET /api/v1/command-center at scale: seeds the pre-aggregated counters of BENCH_CC_TRACES traces
// (default 10,000,000) over the 30 days before now, and at the same rate over the 30 days before
// those (the previous window the deltas compare with), straight into trace_counts with set-based
// SQL: hour rows for 60 days, minute rows for the last 2 days (what the daemon keeps), 50 agents,
// 6 policies, 6 content types; the first request rolls the hours up into days. Plus BENCH_CC_ROWS trace rows (default 200,000) for the live feed,
// agents and a few MCP servers. Then times the route through the daemon's HTTP front: p50/p99 per
// range, sequential requests, target under 300 ms for 30d. BENCH_KEEP_DB=1 keeps the seeded database
// (gwbench_cc_<traces>) and reuses it while its counters still cover the last hour.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import postgres from 'postgres';
import { commandCenterRoutes } from '../../daemon/api/v1/command-center.js';
import { connect, type Sql } from '../../daemon/db/connect.js';
import { migrate } from '../../daemon/db/migrate.js';
import { createServer } from '../../daemon/http/server.js';
import { createLogger } from '../../daemon/log.js';
import { createMetrics } from '../../daemon/metrics.js';
import { createProjectRows } from '../../daemon/project/bootstrap.js';
import { insertCredential } from '../../daemon/project/keys.js';
import { withDatabase } from '../helpers/db.js';

const TRACES = Number(process.env.BENCH_CC_TRACES ?? 10_000_000);
const ROWS = Number(process.env.BENCH_CC_ROWS ?? 200_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 100);
const PROJECT = 'default';
const AGENTS = 50;
const KEEP = process.env.BENCH_KEEP_DB === '1';
const HOUR = 3_600_000;

/** Expected share of each dimension value; counts are drawn as floor(expected + random()), so sums match on average. */
const TYPES = "(values ('VERIFY', 0.85), ('MCP_TOOL_CALL', 0.10), ('EXTERNAL_EVENT', 0.05)) as t(tt, w)";
const DECISIONS =
  "(values ('PASSED', 0.70), ('FLAGGED', 0.10), ('MODIFIED', 0.10), ('BLOCKED', 0.08), ('PENDING_APPROVAL', 0.02)) as d(dec, w)";
const POLICIES =
  "(values ('Personal data', 'VERIFY', 0.10), ('Secrets', 'VERIFY', 0.06), ('Prompt injection', 'VERIFY', 0.05), ('Keywords', 'VERIFY', 0.02), ('DENY delete_file', 'MCP_TOOL_CALL', 0.01), ('Hold writes', 'MCP_TOOL_CALL', 0.01)) as p(name, tt, w)";
const CONTENT =
  "(values ('text', 0.80), ('document', 0.08), ('image', 0.06), ('audio', 0.02), ('mixed', 0.02), ('other', 0.02)) as c(ct, w)";

/** Every counter row of one grain between `from` and `to` (exclusive), `perBucket` traces per bucket. */
async function seedGrain(sql: postgres.Sql, grain: 'minute' | 'hour', from: Date, to: Date, perBucket: number): Promise<void> {
  const step = grain === 'minute' ? '1 minute' : '1 hour';
  const buckets = sql`generate_series(${from.toISOString()}::timestamptz, ${new Date(to.getTime() - 1).toISOString()}::timestamptz, ${step}::interval) as b`;
  const n = (expected: postgres.PendingQuery<postgres.Row[]>) =>
    sql`floor(${perBucket}::float8 * ${expected} * (0.7 + 0.6 * random()) + random())::bigint`;
  await sql`
    insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
    select * from (select ${PROJECT}, ${grain}, 'total', b, t.tt, d.dec, '', ${n(sql`t.w * d.w`)} as n
      from ${buckets} cross join ${sql.unsafe(TYPES)} cross join ${sql.unsafe(DECISIONS)}) x where n > 0`;
  // 90% of the verify and MCP traffic comes from 50 agents, the busiest ~22%, the quietest ~0.4%; an
  // agent's rows keep only whether a request was BLOCKED (daemon/ledger/counters.ts).
  await sql`
    insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
    select * from (select ${PROJECT}, ${grain}, 'agent', b, '', d.dec, 'agt' || k, ${n(sql`0.9 * 0.95 * d.w * (1.0 / (k + 1)) / 4.499`)} as n
      from ${buckets} cross join (values ('', 0.92), ('BLOCKED', 0.08)) as d(dec, w) cross join generate_series(0, ${AGENTS - 1}) k) x where n > 0`;
  await sql`
    insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
    select * from (select ${PROJECT}, ${grain}, 'policy', b, p.tt, '', p.name, ${n(sql`p.w`)} as n
      from ${buckets} cross join ${sql.unsafe(POLICIES)}) x where n > 0`;
  await sql`
    insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
    select * from (select ${PROJECT}, ${grain}, 'content_type', b, '', '', c.ct, ${n(sql`0.85 * c.w`)} as n
      from ${buckets} cross join ${sql.unsafe(CONTENT)}) x where n > 0`;
}

/** Trace rows for the live feed (bypassing the writer: placeholder hashes, the chain does not verify), agents, servers, approvals. */
async function seedRows(sql: postgres.Sql, now: Date): Promise<void> {
  const spacingSeconds = (30 * 86_400) / ROWS;
  await sql`
    insert into traces (id, project_id, sequence_num, created_at, trace_type, decision, reason, action_name, environment, agent_id, content_hash, prev_hash, integrity_hash)
    select md5('cc:' || s)::uuid, ${PROJECT}, s, ${now.toISOString()}::timestamptz - make_interval(secs => (${ROWS} - s) * ${spacingSeconds}::float8),
      'VERIFY', (array['PASSED','PASSED','PASSED','PASSED','PASSED','PASSED','PASSED','FLAGGED','MODIFIED','BLOCKED'])[1 + s % 10],
      null, 'verify', 'prod', 'agt' || (s % ${AGENTS}), 'sha256:' || md5('c' || s) || md5('C' || s), 'sha256:' || md5('i' || (s - 1)) || md5('I' || (s - 1)), 'sha256:' || md5('i' || s) || md5('I' || s)
    from generate_series(1, ${ROWS}) s`;
  await sql`
    insert into trace_content (trace_id, project_id, created_at, salt, body)
    select t.id, t.project_id, t.created_at, decode(md5(t.id::text), 'hex'), jsonb_build_object(
      'display', case when t.decision = 'BLOCKED' then '' else 'Summarise support ticket #' || t.sequence_num || ' and draft a short reply.' end,
      'details', jsonb_build_object('policies', '[]'::jsonb))
    from traces t where t.project_id = ${PROJECT}`;
  await sql`update ledger_heads set seq = ${ROWS} where project_id = ${PROJECT} and stream = 'traces'`;
  await sql`
    insert into agents (id, project_id, name, protection_profile, capability_model, status, requests_day, requests_today)
    select 'agt' || k, ${PROJECT}, 'agent ' || k, 'balanced', '{}'::jsonb, case when k < 45 then 'ACTIVE' else 'PENDING_APPROVAL' end,
      (now() at time zone 'utc')::date, (3000 / (k + 1))::int
    from generate_series(0, ${AGENTS - 1}) k`;
  await sql`
    insert into mcp_servers (id, project_id, name, name_key, server_url, status, scan_state, scan_reason)
    select 'srv' || k, ${PROJECT}, 'server ' || k, 'server ' || k, 'https://mcp' || k || '.example.com/mcp',
      case when k < 6 then 'ACTIVE' else 'PENDING_APPROVAL' end, case when k = 7 then 'failed' else 'succeeded' end, case when k = 7 then 'unreachable' end
    from generate_series(0, 7) k`;
  await sql`
    insert into approvals (id, project_id, kind, agent_id, arguments_hash, status, expires_at)
    select 'apr' || k, ${PROJECT}, 'mcp', 'agt' || k, 'sha256:x', 'PENDING', now() + interval '1 hour' from generate_series(0, 4) k`;
}

async function seed(url: string, now: Date): Promise<void> {
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    const started = performance.now();
    await sql`set synchronous_commit = off`;
    await sql`select setseed(0.42)`;
    const perHour = TRACES / (30 * 24);
    // As the daemon leaves them: minute rows (the last two days), hour rows rolled up to an hour
    // before now, day rows not yet (the first request rolls them up, and is timed on its own).
    const rolledHours = new Date(now.getTime() - 10 * 60_000 - ((now.getTime() - 10 * 60_000) % HOUR));
    const hoursFrom = new Date(rolledHours.getTime() - 60 * 24 * HOUR - (rolledHours.getTime() % (24 * HOUR)));
    await seedGrain(sql, 'hour', hoursFrom, rolledHours, perHour);
    const minuteEnd = new Date(now.getTime() - (now.getTime() % 60_000) + 60_000);
    await seedGrain(sql, 'minute', new Date(minuteEnd.getTime() - 2 * 24 * HOUR), minuteEnd, perHour / 60);
    await sql`insert into trace_count_rollups (project_id, hours_until, days_until) values (${PROJECT}, ${rolledHours.toISOString()}, ${hoursFrom.toISOString()})`;
    await seedRows(sql, now);
    await sql`vacuum (analyze) trace_counts, traces, trace_content, agents`;
    const [c] = await sql<{ rows: string; traces: string; mb: number }[]>`
      select count(*)::text as rows, (select sum(count) from trace_counts where grain = 'hour' and dim = 'total' and bucket >= ${new Date(rolledHours.getTime() - 30 * 24 * HOUR).toISOString()})::text as traces,
        (pg_total_relation_size('trace_counts') / 1048576)::int as mb from trace_counts`;
    console.log(
      `  seeded ${Number(c!.rows).toLocaleString('en')} counter rows (${c!.mb} MB with index) counting ${Number(c!.traces).toLocaleString('en')} traces in the 30 days of hour rows before the last hour, ${ROWS.toLocaleString('en')} trace rows, in ${((performance.now() - started) / 1000).toFixed(0)} s`,
    );
  } finally {
    await sql.end();
  }
}

async function timeRange(base: string, token: string, range: string): Promise<{ p50: number; p99: number; n: number; traces: number }> {
  const latencies: number[] = [];
  let traces = 0;
  for (let i = -3; i < REQUESTS; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/api/v1/command-center?range=${range}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { kpis: { traces: { value: number } } };
    if (res.status !== 200) throw new Error(`${range}: HTTP ${res.status} ${JSON.stringify(body)}`);
    if (i >= 0) latencies.push(performance.now() - t0); // the first three warm caches and plans
    traces = body.kpis.traces.value;
  }
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))]!;
  return { p50: at(0.5), p99: at(0.99), n: latencies.length, traces };
}

async function measure(sql: Sql): Promise<void> {
  await sql`update projects set rate_limit_per_minute = 1000000000 where id = ${PROJECT}`;
  const { token } = await sql.begin((tx) =>
    insertCredential(tx, PROJECT, { kind: 'project_key', name: 'bench', role: 'viewer', userId: null }, null),
  );
  const log = createLogger('warn');
  const server = createServer(commandCenterRoutes({ sql, log }), {
    sql,
    log,
    metrics: createMetrics(sql, 'bench', 20),
    bodyLimitBytes: 1 << 20,
    degradedSubsystems: () => [],
  });
  await new Promise<void>((resolve) => server.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.server.address() as { port: number }).port}`;
  try {
    const t0 = performance.now();
    const first = await fetch(`${base}/api/v1/command-center?range=30d`, { headers: { authorization: `Bearer ${token}` } });
    await first.arrayBuffer();
    const [rolled] = await sql<{ n: string }[]>`select count(*)::text as n from trace_counts where grain = 'day'`;
    console.log(
      `  first request (rolls the hour rows of every past day up into ${Number(rolled!.n).toLocaleString('en')} day rows): ${(performance.now() - t0).toFixed(0)} ms`,
    );
    console.log(`  ${REQUESTS} sequential requests per range; load average ${os.loadavg()[0]!.toFixed(1)}`);
    for (const range of ['30d', '24h', '7d', '6h', '1h']) {
      const r = await timeRange(base, token, range);
      console.log(
        `  range=${range.padEnd(4)} p50 ${r.p50.toFixed(1).padStart(7)} ms  p99 ${r.p99.toFixed(1).padStart(7)} ms  n=${r.n}  kpis.traces=${r.traces.toLocaleString('en')}${range === '30d' ? `  target p99 < 300 ms: ${r.p99 < 300 ? 'met' : 'MISSED'}` : ''}`,
      );
    }
  } finally {
    await server.close(1000);
  }
}

/** A migrated, seeded database; with BENCH_KEEP_DB=1 kept under a fixed name and reused while less than an hour old. */
async function prepareDatabase(admin: postgres.Sql, adminUrl: string, name: string): Promise<void> {
  const [marker] = await admin<
    { note: string | null }[]
  >`select shobj_description(oid, 'pg_database') as note from pg_database where datname = ${name}`;
  const seededAt = marker?.note?.startsWith('seeded ') ? Date.parse(marker.note.slice(7)) : NaN;
  if (Date.now() - seededAt < HOUR) {
    console.log(`  reusing database ${name} (${marker!.note})`);
    return;
  }
  await admin.unsafe(`drop database if exists ${name} with (force)`);
  await admin.unsafe(`create database ${name}`);
  const sql = connect(withDatabase(adminUrl, name), { max: 2, instanceId: 'bench' });
  try {
    await migrate(sql);
    await sql.begin((tx) => createProjectRows(tx, PROJECT, 'bench'));
  } finally {
    await sql.end({ timeout: 1 });
  }
  const now = new Date();
  await seed(withDatabase(adminUrl, name), now);
  await admin.unsafe(`comment on database ${name} is 'seeded ${now.toISOString()}'`);
}

export async function benchCommandCenter(adminUrl: string): Promise<void> {
  const name = KEEP ? `gwbench_cc_${TRACES}` : 'gwbench_cc_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    console.log(
      `\nGET /api/v1/command-center over counters of ${TRACES.toLocaleString('en')} traces in 30 days (and as many in the 30 days before)`,
    );
    await prepareDatabase(admin, adminUrl, name);
    const sql = connect(withDatabase(adminUrl, name), { max: 20, instanceId: 'bench' });
    try {
      await measure(sql);
    } finally {
      await sql.end({ timeout: 1 });
    }
  } finally {
    if (!KEEP) await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
