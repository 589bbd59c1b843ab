// For tests of a spawned gatewayd on the embedded default: the postmaster's pid from its data dir,
// and the cleanup after a failure (the server runs in its own session and outlives a killed daemon).
import fs from 'node:fs/promises';
import path from 'node:path';
import { serverProcesses } from '../../daemon/db/embedded-lock.js';
import type { Spawned } from './spawn-daemon.js';

export async function postmasterPid(dataDir: string): Promise<number> {
  return Number((await fs.readFile(path.join(dataDir, 'pg', 'postmaster.pid'), 'utf8')).split('\n', 1)[0]);
}

/** The daemon killed if it still runs, and every process of its embedded server with it. */
export async function abandonDaemon(d: Spawned, dataDir: string): Promise<void> {
  if (d.child.exitCode !== null || d.child.signalCode !== null) return;
  d.child.kill('SIGKILL');
  await d.exit;
  for (const pid of await serverProcesses(path.join(dataDir, 'pg'))) process.kill(pid, 'SIGKILL');
}
