// tools/call to an @modelcontextprotocol/sdk 1.x server (its own process, proxy-upstream.ts) four
// ways, measured in one run: straight to the server, through nginx as a plain reverse proxy
// (proxy-nginx.ts), through an npm passthrough proxy (http-proxy-3 in its own process,
// proxy-peer.ts), and through gatewayd's MCP proxy (a child process, proxy-gateway.ts; the full
// pipeline and a trace per call). Per upstream mode, concurrency 1 for BENCH_PROXY_CALLS calls
// (p50, p99) and concurrency 32 for BENCH_SECONDS (req/s), BENCH_RUNS rounds with the paths in a
// rotating order so that the machine's noise hits all three; the summary is the median of the
// rounds. Targets: gateway p50 at concurrency 1 at most the peer's; gateway req/s at concurrency 32
// at least 1.2x the peer's and 0.6x nginx's. Every answer must be the call's own successful result,
// and the gateway must have written one trace per call it took.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { withDatabase } from '../helpers/db.js';
import { startBenchGateway } from './proxy-gateway.js';
import { closePools, load, openSession, type Result, type Target } from './proxy-load.js';
import { startNginx } from './proxy-nginx.js';
import { startPeer } from './proxy-peer.js';
import { MODES, spawnUpstream, type Mode } from './proxy-upstream.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CALLS = Number(process.env.BENCH_PROXY_CALLS ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const WARMUP = 200;
const SELECTED = (process.env.BENCH_PROXY_MODES ?? MODES.join(',')).split(',') as Mode[];
const PATHS = ['direct', 'nginx', 'peer', 'gateway'] as const;
type PathName = (typeof PATHS)[number];

interface Measured {
  one: Result;
  many: Result /** Gateway only: the daemon's CPU per call (ms), warm-up included. */;
  cpuMs?: number;
}

const load3 = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const ms = (x: number) => `${x.toFixed(2)} ms`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function measure(target: Target, warmup: number, cpuSeconds?: () => Promise<number>): Promise<Measured> {
  const cpu0 = await cpuSeconds?.();
  const sid = await openSession(target);
  await load(target, sid, 1, { count: warmup });
  const one = await load(target, sid, 1, { count: CALLS });
  const many = await load(target, sid, 32, { seconds: SECONDS });
  if (!cpuSeconds) return { one, many };
  const calls = warmup + one.count + many.count;
  return { one, many, cpuMs: (((await cpuSeconds()) - cpu0!) * 1000) / calls };
}

/**
 * The floor under the gateway's concurrency-1 latency: one durable single-row INSERT (its own
 * transaction, synchronous_commit on, so one WAL flush), sequentially, on the same database. The
 * decision trace must be committed before a call is forwarded, so a gateway call costs at least a
 * direct call plus this.
 */
export async function insertBaseline(sql: postgres.Sql): Promise<{ p50: number; p99: number }> {
  await sql`create table if not exists bench_insert_floor (id bigserial primary key, at timestamptz not null default now(), note text not null)`;
  const latencies: number[] = [];
  for (let i = 0; i < 300; i += 1) {
    const s = performance.now();
    await sql`insert into bench_insert_floor (note) values (${'floor ' + i})`;
    latencies.push(performance.now() - s);
  }
  latencies.sort((a, b) => a - b);
  return { p50: latencies[150]!, p99: latencies[296]! };
}

function line(round: number, mode: Mode, name: PathName, m: Measured): string {
  const errors = m.one.errors + m.many.errors;
  return (
    `  round ${round} ${mode.padEnd(14)} ${name.padEnd(7)} c1 p50 ${ms(m.one.p50).padStart(9)} p99 ${ms(m.one.p99).padStart(9)} (${m.one.count})`
    + ` | c32 ${m.many.perSecond.toFixed(0).padStart(5)}/s p50 ${ms(m.many.p50).padStart(9)} p99 ${ms(m.many.p99).padStart(9)} (${m.many.count})`
    + (m.cpuMs !== undefined ? ` | daemon CPU ${m.cpuMs.toFixed(2)} ms/call` : '')
    + (errors > 0 ? `  ERRORS ${errors}: ${m.one.firstError ?? m.many.firstError}` : '')
  );
}

function summary(mode: Mode, results: Partial<Record<PathName, Measured[]>>, floors: number[]): void {
  const med = (name: PathName, f: (m: Measured) => number) => median(results[name]!.map(f));
  console.log(`\n  ${mode}, median of ${RUNS} rounds:`);
  console.log('    path      c1 p50      c1 p99      c32 req/s');
  for (const name of PATHS) {
    if (!results[name]) continue;
    console.log(
      `    ${name.padEnd(8)} ${ms(med(name, (m) => m.one.p50)).padStart(9)}  ${ms(med(name, (m) => m.one.p99)).padStart(10)}  ${med(
        name,
        (m) => m.many.perSecond,
      )
        .toFixed(0)
        .padStart(9)}`,
    );
  }
  const p50 = med('gateway', (m) => m.one.p50) / med('direct', (m) => m.one.p50);
  let text = `    gateway/direct c1 p50 ${p50.toFixed(2)}`;
  if (results.peer) {
    text +=
      `; gateway/peer c1 p50 ${(med('gateway', (m) => m.one.p50) / med('peer', (m) => m.one.p50)).toFixed(2)} (target <= 1)`
      + `, c32 req/s ${(med('gateway', (m) => m.many.perSecond) / med('peer', (m) => m.many.perSecond)).toFixed(2)} (target >= 1.2)`;
  }
  if (results.nginx) {
    const rps = med('gateway', (m) => m.many.perSecond) / med('nginx', (m) => m.many.perSecond);
    text +=
      `; gateway/nginx c32 req/s ${rps.toFixed(2)} (target >= 0.6)`
      + `; nginx/direct c1 p50 ${(med('nginx', (m) => m.one.p50) / med('direct', (m) => m.one.p50)).toFixed(2)}, c32 req/s ${(med('nginx', (m) => m.many.perSecond) / med('direct', (m) => m.many.perSecond)).toFixed(2)}`;
  }
  text += `; gateway/direct c32 req/s ${(med('gateway', (m) => m.many.perSecond) / med('direct', (m) => m.many.perSecond)).toFixed(2)}`;
  console.log(text);
  const floor = median(floors);
  console.log(
    `    gateway daemon CPU ${med('gateway', (m) => m.cpuMs!).toFixed(2)} ms/call; durable single-row INSERT c1 p50 ${ms(floor)}: `
      + `(direct p50 + INSERT p50) / direct p50 = ${((med('direct', (m) => m.one.p50) + floor) / med('direct', (m) => m.one.p50)).toFixed(2)}, the lowest c1 ratio a trace committed before forwarding allows`,
  );
}

export async function benchProxy(adminUrl: string): Promise<void> {
  console.log(
    `\nproxy: tools/call (echo) on an SDK 1.32.2 server, direct / nginx / npm passthrough peer (http-proxy-3) / gatewayd; c1 ${CALLS} calls, c32 ${SECONDS} s, ${RUNS} rounds`,
  );
  console.log(`  load average at start: ${load3()}`);
  const name = 'gwbench_' + randomBytes(4).toString('hex');
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = withDatabase(adminUrl, name);
  const sql = postgres(url, { max: 2, onnotice: () => {} });
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-bench-proxy-'));
  const stops: (() => Promise<void>)[] = [];
  try {
    const upstream = await spawnUpstream();
    stops.push(upstream.stop);
    const upstreamUrl = (mode: Mode) => `http://127.0.0.1:${upstream.ports[mode]}/mcp`;
    const nginx = await startNginx(Object.fromEntries(SELECTED.map((m) => [m, upstream.ports[m]])));
    if (nginx) stops.push(nginx.stop);
    const peer = await startPeer(Object.fromEntries(SELECTED.map((m) => [m, upstream.ports[m]])));
    stops.push(peer.stop);
    const gw = await startBenchGateway(url, dataDir, sql, Object.fromEntries(SELECTED.map((m) => [m, upstreamUrl(m)])));
    stops.push(gw.stop);
    const targets = (mode: Mode): Partial<Record<PathName, Target>> => {
      const session = mode.startsWith('session');
      return {
        direct: { origin: `http://127.0.0.1:${upstream.ports[mode]}`, path: '/mcp', headers: {}, session },
        ...(nginx ? { nginx: { origin: nginx.urls[mode]!, path: '/mcp', headers: {}, session } } : {}),
        peer: { origin: peer.urls[mode]!, path: '/mcp', headers: {}, session },
        gateway: { origin: gw.url, path: gw.paths[mode]!, headers: { authorization: `Bearer ${gw.key}` }, session },
      };
    };
    const tracesBefore = await gw.callTraces();
    let gatewayCalls = 0;
    const floors: number[] = [];
    const results = new Map<Mode, Partial<Record<PathName, Measured[]>>>(SELECTED.map((m) => [m, {}]));
    for (let round = 1; round <= RUNS; round += 1) {
      const floor = await insertBaseline(sql);
      floors.push(floor.p50);
      console.log(`  round ${round} durable single-row INSERT c1 p50 ${ms(floor.p50)} p99 ${ms(floor.p99)} (300)`);
      for (const mode of SELECTED) {
        const all = targets(mode);
        const order = PATHS.filter((p) => all[p]);
        for (let i = 0; i < order.length; i += 1) {
          const name = order[(i + round - 1) % order.length]!;
          const m = await measure(all[name]!, round === 1 ? WARMUP : WARMUP / 4, name === 'gateway' ? gw.cpuSeconds : undefined);
          (results.get(mode)![name] ??= []).push(m);
          if (name === 'gateway') gatewayCalls += (round === 1 ? WARMUP : WARMUP / 4) + m.one.count + m.many.count;
          if (m.one.errors + m.many.errors > 0) process.exitCode = 1;
          console.log(line(round, mode, name, m));
        }
      }
    }
    for (const mode of SELECTED) summary(mode, results.get(mode)!, floors);
    const traced = (await gw.callTraces()) - tracesBefore;
    console.log(
      `\n  gateway traces: ${traced} MCP_TOOL_CALL traces for ${gatewayCalls} calls through the gateway${traced === gatewayCalls ? '' : '  MISMATCH'}`,
    );
    if (traced !== gatewayCalls) process.exitCode = 1;
  } finally {
    await closePools();
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.log(`  stop failed: ${String(err)}`));
    console.log(`  load average at end: ${load3()}`);
    await sql.end();
    await fs.rm(dataDir, { recursive: true, force: true });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}
