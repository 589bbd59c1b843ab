// `npm run bench -- proxy-content` (run only by name; about two minutes): what content inspection
// costs the daemon per tools/call, in one run. The real gatewayd (proxy-gateway.ts) serves the same
// SDK upstream (proxy-upstream.ts, the `echo` tool, JSON and SSE answers) twice: once under the
// default content policies (arguments and results inspected), once with every content policy OFF.
// Sequential calls, alternating between the two servers round by round; the figure is the daemon's
// CPU per call (from /proc), median of the rounds. Payloads: a short text, and 20 KB of ordinary
// prose (no secret or personal data, so the call goes through) that `echo` returns: 20 KB of
// arguments and 20 KB of result inspected. Budget (issue 18): 0.05 ms per call + 0.2 ms per KB.
import { startBenchGateway } from './proxy-gateway.js';
import { closePools, load, openSession, type Target } from './proxy-load.js';
import { spawnUpstream } from './proxy-upstream.js';
import { openBenchDatabase } from './bench-database.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CALLS = Number(process.env.BENCH_PROXY_CALLS ?? 200);
const MODES = ['stateless-json', 'session-sse'] as const;

const PROSE = [
  'The deployment guide explains how the service is installed, configured and upgraded on a fresh machine.',
  'Each component writes its logs to the journal, and the operator reads them with the usual tools.',
  'When the configuration changes, the daemon reloads it without dropping the connections it holds.',
  'The release notes list what changed in this version and which settings were renamed or removed.',
  'Backups run every night; restoring one takes a few minutes and is described step by step below.',
  'The team reviews the dashboards each morning and opens a ticket when a queue grows for too long.',
].join(' ');

function prose(kb: number): string {
  let text = '';
  while (text.length < kb * 1024) text += PROSE + '\n';
  return text.slice(0, kb * 1024);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function benchProxyContent(adminUrl: string): Promise<void> {
  console.log(
    `\nproxy content inspection: daemon CPU per tools/call (echo), default content policies vs all OFF; ${CALLS} calls x ${RUNS} rounds`,
  );
  const db = await openBenchDatabase(adminUrl, 'gw-bench-content-');
  const { sql } = db;
  const stops: (() => Promise<void>)[] = [];
  try {
    const upstream = await spawnUpstream();
    stops.push(upstream.stop);
    const upstreams: Record<string, string> = {};
    for (const mode of MODES) {
      upstreams[`${mode}-inspected`] = `http://127.0.0.1:${upstream.ports[mode]}/mcp`;
      upstreams[`${mode}-off`] = `http://127.0.0.1:${upstream.ports[mode]}/mcp`;
    }
    const gw = await startBenchGateway(db.url, db.dataDir, sql, upstreams);
    stops.push(gw.stop);
    // Every content policy OFF on the `-off` servers, straight into the table (the API is tested elsewhere).
    for (const [upstreamName, route] of Object.entries(gw.paths)) {
      if (!upstreamName.endsWith('-off')) continue;
      const serverId = route.split('/').pop()!;
      for (const direction of ['arguments', 'results'])
        for (const detector of ['secrets', 'pii', 'injection'])
          await sql`insert into mcp_content_policies (id, project_id, server_id, direction, detector, action)
            select ${`${serverId}-${direction}-${detector}`}, project_id, id, ${direction}, ${detector}, 'OFF' from mcp_servers where id = ${serverId}`;
    }
    const payloads = { 'short text': '', '20 KB prose': prose(20) };
    for (const mode of MODES) {
      for (const [label, payload] of Object.entries(payloads)) {
        const kb = (2 * Buffer.byteLength(payload)) / 1024; // inspected twice: the arguments and the echoed result
        const cpu: Record<'inspected' | 'off', number[]> = { inspected: [], off: [] };
        const targets = {
          inspected: {
            origin: gw.url,
            path: gw.paths[`${mode}-inspected`]!,
            headers: { authorization: `Bearer ${gw.key}` },
            session: mode.startsWith('session'),
          },
          off: {
            origin: gw.url,
            path: gw.paths[`${mode}-off`]!,
            headers: { authorization: `Bearer ${gw.key}` },
            session: mode.startsWith('session'),
          },
        } satisfies Record<string, Target>;
        const sids = { inspected: await openSession(targets.inspected), off: await openSession(targets.off) };
        for (const which of ['inspected', 'off'] as const) await load(targets[which], sids[which], 1, { count: 50 }, payload);
        for (let round = 0; round < RUNS; round++) {
          for (const which of round % 2 === 0 ? (['inspected', 'off'] as const) : (['off', 'inspected'] as const)) {
            const before = await gw.cpuSeconds();
            const r = await load(targets[which], sids[which], 1, { count: CALLS }, payload);
            if (r.errors > 0) {
              process.exitCode = 1;
              console.log(`  ${mode} ${label} ${which}: ${r.errors} errors, first: ${r.firstError}`);
            }
            cpu[which].push((((await gw.cpuSeconds()) - before) * 1000) / r.count);
          }
        }
        const on = median(cpu.inspected);
        const off = median(cpu.off);
        const budget = 0.05 + 0.2 * kb;
        console.log(
          `  ${mode.padEnd(14)} ${label.padEnd(11)} off ${off.toFixed(3)} ms/call, inspected ${on.toFixed(3)} ms/call: extra ${(on - off).toFixed(3)} ms`
            + ` for ${kb.toFixed(1)} KB inspected, budget ${budget.toFixed(3)} ms (${(((on - off) / budget) * 100).toFixed(0)}% of it)`,
        );
      }
    }
  } finally {
    await closePools();
    for (const stop of stops.reverse()) await stop().catch((err: unknown) => console.log(`  stop failed: ${String(err)}`));
    await db.close();
  }
}
