// Background work shared by every daemon of one database (checkpoints, retention): each run takes
// a transaction-scoped advisory lock, so when several daemons tick at once exactly one does the
// work and the others skip; a daemon that dies mid-run releases the lock with its connection.
import type { Sql, Tx } from '../db/connect.js';
import type { Logger } from '../log.js';

/** Runs fn inside a transaction holding the named lock; null when another daemon holds it. */
export async function withWorkerLock<T>(sql: Sql, name: string, fn: (tx: Tx) => Promise<T>): Promise<T | null> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(hashtextextended(${'gw.worker.' + name}, 0)) as locked`;
    if (!row!.locked) return null;
    return fn(tx);
  }) as Promise<T | null>;
}

export interface Periodic {
  /** Resolves when the current run (if any) has ended; no new run starts afterwards. */
  stop(): Promise<void>;
}

/** Calls run every intervalMs (first after firstDelayMs), never two at once; failures are logged, not thrown. */
export function every(intervalMs: number, firstDelayMs: number, name: string, log: Logger, run: () => Promise<unknown>): Periodic {
  let stopped = false;
  let current: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | null = null;
  const tick = (): void => {
    current = run()
      .then(
        () => undefined,
        (err: unknown) => {
          log.warn({ err, worker: name }, 'background run failed; retrying next interval');
        },
      )
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs).unref();
      });
  };
  timer = setTimeout(tick, firstDelayMs).unref();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await current;
    },
  };
}
