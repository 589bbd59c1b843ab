// Who holds the embedded server's data directory. PostgreSQL writes the postmaster's pid on the
// first line of postmaster.pid and refuses to start while that process lives; it says so only in
// its own log. gatewayd reads the file first, so that a data dir held by a running server (another
// gatewayd, or one that left its database behind) is reported in one line at the default level.
// Server processes are recognised by their working directory, which PostgreSQL sets to the data
// dir in the postmaster and every child (Linux /proc; elsewhere the pid file alone is used).
import fs from 'node:fs/promises';
import path from 'node:path';

export type DataDirHolder =
  | { readonly state: 'free' }
  /** postmaster.pid names a process that no longer runs: PostgreSQL replaces the file itself. */
  | { readonly state: 'stale'; readonly pid: number }
  /** A live process that is not a server of this data dir (the pid was reused). */
  | { readonly state: 'reused'; readonly pid: number }
  | { readonly state: 'held'; readonly pid: number };

export class DataDirHeldError extends Error {}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The process's working directory, or null where it cannot be read (gone, another user, no /proc). */
async function cwdOf(pid: number): Promise<string | null> {
  return fs.readlink(`/proc/${pid}/cwd`).catch(() => null);
}

/** /proc shows a working directory with its links resolved. */
const realDir = (dir: string): Promise<string> => fs.realpath(dir).catch(() => path.resolve(dir));

export async function dataDirHolder(databaseDir: string): Promise<DataDirHolder> {
  const text = await fs.readFile(path.join(databaseDir, 'postmaster.pid'), 'utf8').catch(() => null);
  const pid = Number(text?.split('\n', 1)[0]?.trim());
  if (text === null || !Number.isSafeInteger(pid) || pid <= 0) return { state: 'free' };
  if (!isAlive(pid)) return { state: 'stale', pid };
  const cwd = await cwdOf(pid);
  if (cwd !== null && cwd !== (await realDir(databaseDir))) return { state: 'reused', pid };
  return { state: 'held', pid };
}

/** The one line an operator reads when the data dir is taken. */
export function heldMessage(databaseDir: string, pid: number): string {
  return `embedded PostgreSQL data dir ${databaseDir} is in use by a running PostgreSQL (pid ${pid}, from postmaster.pid): another gatewayd uses this GATEWAY_DATA_DIR, or an earlier one exited without stopping its database; stop that process (kill -INT ${pid}) and start again`;
}

/** Pids of the processes still running in the data dir (an old postmaster's children after it died). */
export async function serverProcesses(databaseDir: string): Promise<number[]> {
  const entries = await fs.readdir('/proc').catch(() => [] as string[]);
  const want = await realDir(databaseDir);
  const found: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const pid = Number(name);
    if (pid !== process.pid && (await cwdOf(pid)) === want) found.push(pid);
  }
  return found;
}

/** Waits until no process runs in the data dir (or `cancelled`); returns those still there at the end. */
export async function serverProcessesGone(
  databaseDir: string,
  timeoutMs: number,
  cancelled: () => boolean = () => false,
): Promise<number[]> {
  const pollMs = 100;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const left = await serverProcesses(databaseDir);
    if (left.length === 0 || Date.now() >= deadline || cancelled()) return left;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
