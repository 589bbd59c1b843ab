// Runs the real gatewayd binary as a child process, the way systemd or `npm start` would.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const DAEMON_BIN = fileURLToPath(new URL('../../daemon/main.js', import.meta.url));

export interface Spawned {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

export interface SpawnOptions {
  /**
   * The child's stdout as a file descriptor the test holds (a FIFO's write end: a shell pipeline's
   * reader the test can close or stop reading) instead of a pipe read here. Then GATEWAY_LISTEN must
   * name a port, and `url` resolves once /healthz answers there; stdout() stays empty.
   */
  readonly stdout?: number;
}

export function spawnDaemon(env: Record<string, string>, options: SpawnOptions = {}): Spawned {
  const child = spawn(process.execPath, [DAEMON_BIN], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', GATEWAY_LISTEN: '127.0.0.1:0', ...env },
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*gatewayd listening/.exec(out);
      if (m) resolve(m[1]!);
    });
    if (options.stdout !== undefined) void pollHealthz(`http://${env.GATEWAY_LISTEN}`, child).then(resolve, reject);
    child.on('close', () => reject(new Error(`gatewayd exited before listening: ${err || out}`)));
  });
  url.catch(() => undefined);
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString();
  });
  // 'close', not 'exit': 'exit' may come before the last of the child's stdout and stderr has been
  // read, and tests read what it printed (why start-up failed) as soon as this resolves.
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, url, exit, stdout: () => out, stderr: () => err };
}

/** Resolves with `base` once its /healthz answers, while `child` runs. */
async function pollHealthz(base: string, child: ChildProcess): Promise<string> {
  while (child.exitCode === null && child.signalCode === null) {
    const up = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(5_000) }).then(
      (res) => res.ok,
      () => false,
    );
    if (up) return base;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('gatewayd exited before listening');
}

/**
 * Resolves when the daemon has logged a line matching `pattern` (e.g. /secret rules compiled/,
 * after which no start-up work competes with what a test or benchmark measures).
 */
export async function waitForLog(spawned: Spawned, pattern: RegExp, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(spawned.stdout())) {
    if (Date.now() > deadline) throw new Error(`gatewayd did not log ${pattern} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A figure of the process's memory from /proc (Linux): resident now, or its peak so far, in bytes. */
export async function procMemory(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(await fs.readFile(`/proc/${pid}/status`, 'utf8'));
  return Number(m![1]) * 1024;
}

/**
 * gatewayd on its own data dir with a 96 MB heap, for tests that measure its memory: a reader that
 * held a whole large body could not finish, and garbage cannot pile up far beyond the cap. Waits
 * until start-up work is over (secret rules compiled) and returns the admin token it wrote.
 */
export async function spawnCappedDaemon(
  t: { teardown(fn: () => unknown): void },
  env: Record<string, string>,
): Promise<{ daemon: Spawned; base: string; adminToken: string; pid: number }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-capped-'));
  const daemon = spawnDaemon({
    GATEWAY_DATA_DIR: dataDir,
    NODE_OPTIONS: '--max-old-space-size=96',
    GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400',
    GATEWAY_RETENTION_INTERVAL_SECONDS: '86400',
    ...env,
  });
  t.teardown(async () => {
    daemon.child.kill('SIGTERM');
    await daemon.exit;
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  const base = await daemon.url;
  await waitForLog(daemon, /secret rules compiled/);
  const adminToken = (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
  return { daemon, base, adminToken, pid: daemon.child.pid! };
}
