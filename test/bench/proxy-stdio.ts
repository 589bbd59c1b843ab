// The stdio line of the proxy benchmark (issue 28): tools/call (echo) to a stdio server
// (proxy-stdio-server.ts) two ways in one run: the SDK client calling it directly over stdio
// (StdioClientTransport), and through gatewayd's MCP proxy (a child process, proxy-gateway.ts),
// which runs the same program in its sandbox and answers over HTTP (the full pipeline and a trace
// per call). Beside them, the same daemon's HTTP path (the same echo on the HTTP lines' stateless
// JSON upstream, proxy-upstream.ts): what the stdio path costs beyond it is the stdio path's own,
// the rest (pipeline, trace commit, load) is common to both. Concurrency 1, BENCH_PROXY_CALLS calls
// per path, BENCH_RUNS rounds in rotating order; the summary is the median of the rounds' p50s, the
// gateway's added ms at the median (target: at most 0.5 ms) and the stdio path's beyond the HTTP
// path's, beside a durable single-row INSERT's p50 on the same database (the decision trace is
// committed before the call goes on). Every answer must be the call's own echo.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { startBenchGateway } from './proxy-gateway.js';
import { insertBaseline } from './proxy.js';
import { closePools, load, openSession, type Result } from './proxy-load.js';
import { spawnUpstream } from './proxy-upstream.js';
import { loadAverage, openBenchDatabase } from './bench-database.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const CALLS = Number(process.env.BENCH_PROXY_CALLS ?? 500);
const WARMUP = 200;
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const SERVER = fileURLToPath(new URL('./proxy-stdio-server.js', import.meta.url));

const ms = (x: number) => `${x.toFixed(2)} ms`;

/** direct: the SDK client over stdio; gateway: through gatewayd to the stdio server; http: through gatewayd to the HTTP upstream. */
type Path = 'direct' | 'gateway' | 'http';
const PATHS: readonly Path[] = ['direct', 'gateway', 'http'];
/** Round r starts with a different path each time, so no path is always measured first or last. */
const LABEL: Record<Path, string> = { direct: 'stdio direct', gateway: 'stdio gateway', http: 'http gateway' };
const rotated = (round: number): Path[] => PATHS.map((_, i) => PATHS[(i + round - 1) % PATHS.length]!);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `count` echo calls one after another by the SDK client over stdio. */
async function direct(client: Client, count: number): Promise<Result> {
  const latencies: number[] = [];
  let errors = 0;
  let firstError: string | null = null;
  const t0 = performance.now();
  for (let i = 0; i < count; i += 1) {
    const text = `bench ${i}`;
    const s = performance.now();
    const result = (await client.callTool({ name: 'echo', arguments: { text } })) as { content: { text?: string }[] };
    latencies.push(performance.now() - s);
    if (result.content[0]?.text !== text) {
      errors += 1;
      firstError ??= JSON.stringify(result).slice(0, 300);
    }
  }
  const elapsed = (performance.now() - t0) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    count,
    errors,
    firstError,
    perSecond: count / elapsed,
    p50: latencies[Math.floor(count * 0.5)]!,
    p99: latencies[Math.floor(count * 0.99)]!,
  };
}

export async function benchProxyStdio(adminUrl: string): Promise<void> {
  console.log(
    `\nproxy stdio: tools/call (echo) on an SDK stdio server, SDK client direct over stdio / gatewayd; c1 ${CALLS} calls, ${RUNS} rounds`,
  );
  console.log(`  load average at start: ${loadAverage()}`);
  const db = await openBenchDatabase(adminUrl, 'gw-bench-stdio-');
  const { sql } = db;
  const client = new Client({ name: 'bench-direct', version: '1.0.0' });
  const stops: (() => Promise<void>)[] = [];
  try {
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: 'ignore' }));
    stops.push(() => client.close());
    const registration = {
      transport: 'stdio',
      command: process.execPath,
      args: [SERVER],
      grants: [
        { path: path.join(ROOT, 'node_modules'), mode: 'ro' },
        { path: path.dirname(SERVER), mode: 'ro' },
      ],
    };
    const upstream = await spawnUpstream();
    stops.push(upstream.stop);
    const gw = await startBenchGateway(
      db.url,
      db.dataDir,
      sql,
      { stdio: registration, http: `http://127.0.0.1:${upstream.ports['stateless-json']}/mcp` },
      { GATEWAY_STDIO_COMMANDS: process.execPath },
    );
    stops.push(gw.stop);
    const targetOf = (p: string) => ({
      origin: gw.url,
      path: gw.paths[p]!,
      headers: { authorization: `Bearer ${gw.key}` },
      session: false,
    });
    const targets = { gateway: targetOf('stdio'), http: targetOf('http') };
    const sids = { gateway: await openSession(targets.gateway), http: await openSession(targets.http) };
    const p50s: Record<Path, number[]> = { direct: [], gateway: [], http: [] };
    const floors: number[] = [];
    for (let round = 1; round <= RUNS; round += 1) {
      floors.push((await insertBaseline(sql)).p50);
      const warmup = round === 1 ? WARMUP : WARMUP / 4;
      for (const which of rotated(round)) {
        const run = (count: number) => (which === 'direct' ? direct(client, count) : load(targets[which], sids[which], 1, { count }));
        await run(warmup);
        const m = await run(CALLS);
        p50s[which].push(m.p50);
        if (m.errors > 0) process.exitCode = 1;
        console.log(
          `  round ${round} ${LABEL[which].padEnd(22)} c1 p50 ${ms(m.p50).padStart(9)} p99 ${ms(m.p99).padStart(9)} (${m.count})${m.errors > 0 ? `  ERRORS ${m.errors}: ${m.firstError}` : ''}`,
        );
      }
    }
    const d = median(p50s.direct);
    const g = median(p50s.gateway);
    const h = median(p50s.http);
    console.log(
      `\n  stdio, median of ${RUNS} rounds: direct c1 p50 ${ms(d)}, gateway c1 p50 ${ms(g)}; added at the median ${ms(g - d)} (target <= 0.5 ms); durable single-row INSERT c1 p50 ${ms(median(floors))}`,
    );
    console.log(`  the same daemon's HTTP path c1 p50 ${ms(h)}: the stdio path beyond it ${ms(g - h)}`);
  } finally {
    await closePools();
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.log(`  stop failed: ${String(err)}`));
    console.log(`  load average at end: ${loadAverage()}`);
    await db.close();
  }
}
