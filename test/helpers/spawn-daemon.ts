// Runs the real gatewayd binary as a child process, the way systemd or `npm start` would.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const DAEMON_BIN = fileURLToPath(new URL('../../daemon/main.js', import.meta.url));

export interface Spawned {
  readonly child: ChildProcess;
  readonly url: Promise<string>;
  readonly exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
  stderr(): string;
}

export function spawnDaemon(env: Record<string, string>): Spawned {
  const child = spawn(process.execPath, [DAEMON_BIN], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', GATEWAY_LISTEN: '127.0.0.1:0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /"url":"(http:\/\/[^"]+)"[^\n]*gatewayd listening/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on('close', () => reject(new Error(`gatewayd exited before listening: ${err || out}`)));
  });
  url.catch(() => undefined);
  child.stderr!.on('data', (c: Buffer) => { err += c.toString(); });
  // 'close', not 'exit': 'exit' may come before the last of the child's stdout and stderr has been
  // read, and tests read what it printed (why start-up failed) as soon as this resolves.
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal }));
  });
  return { child, url, exit, stdout: () => out, stderr: () => err };
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
