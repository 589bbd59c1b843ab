// The gateway side of the proxy benchmark: the real gatewayd as a child process on a fresh
// database, its log written to a file (as a service manager would take it; a pipe read by the
// benchmark would cost the benchmark's own CPU), the benchmark's upstreams registered, scanned and
// admitted with an ALLOW rule on `echo` through the API (an HTTP upstream by its URL, a stdio
// one by its registration), and a viewer key for the calls.
// BENCH_PROXY_CPU_PROF=<dir> runs the daemon under `node --cpu-prof` (profile written at exit).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import type postgres from 'postgres';
import { DAEMON_BIN } from '../helpers/spawn-daemon.js';

export interface BenchGateway {
  readonly url: string;
  readonly child: ChildProcess;
  /** The viewer key the calls use. */
  readonly key: string;
  /** Proxy URL path per upstream name. */
  readonly paths: Record<string, string>;
  /** MCP_TOOL_CALL traces written so far. */
  callTraces(): Promise<number>;
  /** The daemon's CPU time so far (user + system, seconds), from /proc. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

/** The first group of the first log line matching `pattern`, once it is there. */
async function waitFor(logFile: string, child: ChildProcess, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const text = await fs.readFile(logFile, 'utf8').catch(() => '');
    const m = pattern.exec(text);
    if (m) return m[1]!;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`gatewayd did not log ${pattern}: ${text.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, read field by field
async function api(base: string, token: string, method: string, route: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(base + route, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function admit(
  base: string,
  admin: string,
  releaser: string,
  name: string,
  upstream: string | Record<string, unknown>,
): Promise<string> {
  const body0 = typeof upstream === 'string' ? { server_url: upstream } : upstream;
  const reg = await api(base, admin, 'POST', '/api/v1/mcp/servers', { name: `bench-${name}`, ...body0 });
  if (reg.status !== 201) throw new Error(`register ${name}: ${reg.status} ${JSON.stringify(reg.body)}`);
  const id = reg.body.id as string;
  const scan = await api(base, admin, 'POST', `/api/v1/mcp/servers/${id}/scan`);
  if (scan.body?.scanned !== true) throw new Error(`scan ${name}: ${scan.status} ${JSON.stringify(scan.body)}`);
  const tools = (await api(base, admin, 'GET', `/api/v1/mcp/servers/${id}/tools`)).body.tools as {
    id: string;
    name: string;
    current_fingerprint: string;
  }[];
  const body = {
    tools: tools.map((t) => ({ tool_id: t.id, rule: t.name === 'echo' ? 'ALLOW' : 'DENY', fingerprint: t.current_fingerprint })),
  };
  const act = await api(base, releaser, 'POST', `/api/v1/mcp/servers/${id}/activate`, body);
  if (act.status !== 200) throw new Error(`activate ${name}: ${act.status} ${JSON.stringify(act.body)}`);
  return `/api/v1/mcp/proxy/${id}`;
}

export async function startBenchGateway(
  databaseUrl: string,
  dataDir: string,
  sql: postgres.Sql,
  upstreams: Record<string, string | Record<string, unknown>>,
  env: Record<string, string> = {},
): Promise<BenchGateway> {
  const logFile = path.join(dataDir, 'gatewayd.log');
  const out = await fs.open(logFile, 'a');
  const profDir = process.env.BENCH_PROXY_CPU_PROF;
  const child = spawn(process.execPath, [...(profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : []), DAEMON_BIN], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DATABASE_URL: databaseUrl,
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_LISTEN: '127.0.0.1:0',
      GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', // the upstreams are on loopback, refused by default
      GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400',
      GATEWAY_RETENTION_INTERVAL_SECONDS: '86400',
      ...env,
    },
    stdio: ['ignore', out.fd, out.fd],
  });
  await out.close();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    const url = await waitFor(logFile, child, /"url":"(http:\/\/[^"]+)"[^\n]*gatewayd listening/);
    await waitFor(logFile, child, /secret rules compiled()/); // start-up work is not the proxy's
    const admin = (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
    const keyOf = async (role: string, userId?: string) => {
      const res = await api(url, admin, 'POST', '/api/v1/keys', { name: `bench ${role}`, role, ...(userId ? { user_id: userId } : {}) });
      if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.key as string;
    };
    const releaser = await keyOf('admin', 'releaser');
    const paths: Record<string, string> = {};
    for (const [name, upstreamUrl] of Object.entries(upstreams)) paths[name] = await admit(url, admin, releaser, name, upstreamUrl);
    // The project rate limit is part of the product, not of this measurement.
    await sql`update projects set rate_limit_per_minute = 100000000`;
    const key = await keyOf('viewer');
    const callTraces = async () => (await sql`select count(*)::int as n from traces where trace_type = 'MCP_TOOL_CALL'`)[0]!.n as number;
    const cpuSeconds = async () => {
      const stat = await fs.readFile(`/proc/${child.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ 100)
    };
    return { url, child, key, paths, callTraces, cpuSeconds, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
