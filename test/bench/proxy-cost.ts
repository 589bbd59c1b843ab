// What one proxied tools/call costs the daemon, split by kind: user and system CPU time per call
// (from /proc/<pid>/stat, all of the daemon's threads) at concurrency 1 and 32, on the proxy
// benchmark's session JSON upstream and gateway. It answers "where would half the CPU come from":
// system calls (the socket reads and writes) or JavaScript. `npm run bench -- proxy-cost`, run only
// by name; BENCH_PROXY_CALLS (4000) calls per concurrency after 300 warm-up calls.
import fs from 'node:fs/promises';
import { loadAverage, openBenchDatabase } from './bench-database.js';
import { startBenchGateway } from './proxy-gateway.js';
import { closePools, load, openSession, type Target } from './proxy-load.js';
import { spawnUpstream } from './proxy-upstream.js';

const CALLS = Number(process.env.BENCH_PROXY_CALLS ?? 4000);
const MODE = 'session-json';

/** The process's user and system CPU time so far, in clock ticks (USER_HZ, 100 a second). */
async function ticks(pid: number): Promise<{ user: number; system: number }> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]), system: Number(fields[12]) };
}

export async function benchProxyCost(adminUrl: string): Promise<void> {
  console.log(`\nproxy cost: daemon CPU per tools/call (echo, ${MODE}), user and system, ${CALLS} calls per concurrency`);
  console.log(`  load average at start: ${loadAverage()}`);
  const db = await openBenchDatabase(adminUrl, 'gw-bench-cost-');
  const stops: (() => Promise<void>)[] = [];
  try {
    const upstream = await spawnUpstream();
    stops.push(upstream.stop);
    const gw = await startBenchGateway(db.url, db.dataDir, db.sql, {
      [MODE]: `http://127.0.0.1:${upstream.ports[MODE]}/mcp`,
    });
    stops.push(gw.stop);
    const target: Target = { origin: gw.url, path: gw.paths[MODE]!, headers: { authorization: `Bearer ${gw.key}` }, session: true };
    const sid = await openSession(target);
    await load(target, sid, 1, { count: 300 });
    for (const concurrency of [1, 32]) {
      const before = await ticks(gw.child.pid!);
      const r = await load(target, sid, concurrency, { count: CALLS });
      const after = await ticks(gw.child.pid!);
      const perCall = (t: number) => ((t * 10) / r.count).toFixed(3); // a tick is 10 ms
      console.log(
        `  c${concurrency}: ${r.count} calls (${r.errors} errors), p50 ${r.p50.toFixed(2)} ms, ${r.perSecond.toFixed(0)}/s;`
          + ` daemon CPU ${perCall(after.user - before.user)} ms user + ${perCall(after.system - before.system)} ms system per call`,
      );
      if (r.errors > 0) process.exitCode = 1;
    }
    console.log(`  load average at end: ${loadAverage()}`);
  } finally {
    await closePools();
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.log(`  stop failed: ${String(err)}`));
    await db.close();
  }
}
