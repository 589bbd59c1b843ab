// The embedded PostgreSQL server as gatewayd's supervised child. gatewayd spawns the postmaster
// itself (in its own session, so a terminal's Ctrl-C reaches gatewayd, which stops it after the
// last trace is flushed) and watches it: when it dies unasked (killed, crashed), it is started
// again on the same port with a growing delay, after the dead postmaster's children have left the
// data dir (PostgreSQL refuses to start while they hold its shared memory). The pool, the state
// cache listener and the trace writer reconnect on their own once it answers again.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../log.js';
import { serverProcessesGone } from './embedded-lock.js';

export interface PostmasterSpec {
  readonly bin: string;
  readonly databaseDir: string;
  readonly port: number;
  readonly flags: readonly string[];
  /** As root the server runs as user postgres. */
  readonly runAs: { readonly uid?: number; readonly gid?: number };
}

export interface SupervisorOptions {
  /** Delay before the second restart attempt; it doubles up to maxDelayMs. */
  readonly firstDelayMs?: number;
  readonly maxDelayMs?: number;
  /** How long a restart waits for the dead postmaster's children to exit. */
  readonly childrenWaitMs?: number;
}

const READY = 'database system is ready to accept connections';
const STOP_GRACE_MS = 30_000;

export interface Spawned {
  readonly child: ChildProcess;
  /** Resolves once the server accepts connections; rejects, naming PostgreSQL's reason, if it exits first. */
  readonly ready: Promise<void>;
}

/** PostgreSQL's own words for why it stopped: its FATAL/PANIC lines and their HINT, else its last lines. */
function reasonOf(lines: readonly string[]): string {
  const pattern = /\b(FATAL|PANIC|ERROR|DETAIL|HINT):\s+/;
  const marked = lines.filter((l) => pattern.test(l)).map((l) => l.slice(l.search(pattern)).replace(/:\s+/, ': '));
  return (marked.length > 0 ? marked : lines.slice(-2)).join(' ').replace(/\s+/g, ' ').trim();
}

export function spawnPostmaster(spec: PostmasterSpec, pgLog: Logger): Spawned {
  const child = spawn(spec.bin, ['-D', spec.databaseDir, '-p', String(spec.port), ...spec.flags], {
    ...spec.runAs,
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  const ready = new Promise<void>((resolve, reject) => {
    const tail: string[] = [];
    let partial = '';
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        pgLog.debug({ message: line });
        tail.push(line);
        if (tail.length > 8) tail.shift();
        if (line.includes(READY)) resolve();
      }
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      const reason = reasonOf(partial ? [...tail, partial] : tail);
      reject(new Error(`exited early (${signal ?? `code ${code}`})${reason ? `: ${reason}` : ''}`));
    });
  });
  ready.catch(() => undefined);
  return { child, ready };
}

const hasExited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Fast shutdown (SIGINT); immediate (SIGQUIT) if it has not finished within the grace period. */
async function stopPostmaster(child: ChildProcess): Promise<void> {
  if (hasExited(child)) return;
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGINT');
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([
    gone.then(() => false),
    new Promise<boolean>((r) => {
      timer = setTimeout(() => r(true), STOP_GRACE_MS);
    }),
  ]);
  clearTimeout(timer);
  if (late) {
    child.kill('SIGQUIT');
    await gone;
  }
}

export class PostmasterSupervisor {
  private child: ChildProcess;
  private stopping = false;
  private restarting: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly firstDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly childrenWaitMs: number;
  /** Last resort when gatewayd exits without stopping the server (an uncaught error): ask it to stop. */
  private readonly onProcessExit = () => {
    if (!hasExited(this.child)) this.child.kill('SIGINT');
  };
  restarts = 0;

  constructor(
    private readonly spec: PostmasterSpec,
    first: ChildProcess,
    private readonly log: Logger,
    private readonly pgLog: Logger,
    options: SupervisorOptions = {},
  ) {
    this.firstDelayMs = options.firstDelayMs ?? 250;
    this.maxDelayMs = options.maxDelayMs ?? 15_000;
    this.childrenWaitMs = options.childrenWaitMs ?? 15_000;
    this.child = first;
    this.watch(first);
    process.once('exit', this.onProcessExit);
  }

  /** The postmaster's pid now (it changes with every restart). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  private watch(child: ChildProcess): void {
    child.once('exit', (code, signal) => {
      if (this.stopping || child !== this.child) return;
      this.log.error(
        { pid: child.pid, code, signal },
        `embedded PostgreSQL exited unexpectedly (${signal ?? `code ${code}`}); restarting it`,
      );
      this.restarting = this.restart(Date.now()).finally(() => {
        this.restarting = null;
      });
    });
  }

  private async restart(downSince: number): Promise<void> {
    let delay = this.firstDelayMs;
    for (let attempt = 1; !this.stopping; attempt++) {
      const left = await serverProcessesGone(this.spec.databaseDir, this.childrenWaitMs, () => this.stopping);
      if (this.stopping) return;
      if (left.length > 0)
        this.log.warn({ pids: left }, 'processes of the dead embedded PostgreSQL still run in its data dir; starting anyway');
      const next = spawnPostmaster(this.spec, this.pgLog);
      this.child = next.child;
      try {
        await next.ready;
      } catch (err) {
        if (this.stopping) return;
        this.log.warn(
          { attempt, retryInMs: delay },
          `embedded PostgreSQL did not restart: ${err instanceof Error ? err.message : String(err)}; retrying in ${delay} ms`,
        );
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, delay);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
        delay = Math.min(delay * 2, this.maxDelayMs);
        continue;
      }
      if (this.stopping) return;
      this.restarts += 1;
      this.watch(next.child);
      this.log.warn(
        { pid: next.child.pid, attempt, downMs: Date.now() - downSince, restarts: this.restarts },
        'embedded PostgreSQL restarted',
      );
      return;
    }
  }

  /** From now on an exit is expected (gatewayd is shutting down): nothing is restarted. */
  release(): void {
    this.stopping = true;
    this.wake?.();
  }

  async stop(): Promise<void> {
    this.release();
    process.removeListener('exit', this.onProcessExit);
    await stopPostmaster(this.child);
    await this.restarting;
  }
}
