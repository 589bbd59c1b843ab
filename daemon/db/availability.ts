// Whether this daemon's database is known to be down. A read or write that fails as unreachable
// marks it down; from then on the hot paths do not ask the pool (whose connection attempts wait out
// postgres.js's reconnect backoff and connect_timeout: seconds per request) but decide at once, from
// what the daemon last read (state-cache/last-known.ts), or refuse. A probe on a connection of its
// own (never the pool's backoff) tries every PROBE_MS and marks it up again on the first answer.
import postgres from 'postgres';
import type { Logger } from '../log.js';
import { sqlState } from './sqlstate.js';

/** The error a read gets, without a connection attempt, while the database is known down. */
export class DatabaseDownError extends Error {
  readonly code = 'GATEWAY_DATABASE_DOWN';

  constructor(cause?: unknown) {
    super('the database is unreachable (known down; a probe checks it)', { cause });
    this.name = 'DatabaseDownError';
  }
}

/** Name of the subsystem in X-Gateway-Degraded-Subsystems and /healthz. */
export const DATABASE = 'database';

export const PROBE_MS = 500;
const PROBE_CONNECT_TIMEOUT_S = 2;

export interface AvailabilityOptions {
  readonly log?: Logger;
  readonly instanceId?: string;
  readonly probeMs?: number;
}

export class DatabaseAvailability {
  private downSince: number | null = null;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> | null = null;
  private closed = false;
  private readonly probeMs: number;

  constructor(
    private readonly url: string,
    private readonly options: AvailabilityOptions = {},
  ) {
    this.probeMs = options.probeMs ?? PROBE_MS;
  }

  get down(): boolean {
    return this.downSince !== null;
  }

  /** A database operation failed as unreachable: known down until the probe gets an answer. */
  markDown(err: unknown): void {
    if (this.closed || this.downSince !== null) return;
    this.downSince = Date.now();
    this.options.log?.warn(
      { code: sqlState(err) },
      'database unreachable: deciding from the state last read, refusing what needs the database, until a probe gets an answer',
    );
    this.schedule();
  }

  /** Throws DatabaseDownError at once while the database is known down (no connection attempt). */
  assertUp(): void {
    if (this.downSince !== null) throw new DatabaseDownError();
  }

  degradedSubsystems(): string[] {
    return this.downSince !== null ? [DATABASE] : [];
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.probing;
  }

  private schedule(): void {
    if (this.closed || this.timer || this.probing) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.probing = this.probe().finally(() => {
        this.probing = null;
        if (this.downSince !== null) this.schedule();
      });
    }, this.probeMs);
    this.timer.unref();
  }

  /** One attempt on a fresh connection: no pool state, no backoff carried over from earlier failures. */
  private async probe(): Promise<void> {
    const conn = postgres(this.url, {
      max: 1,
      connect_timeout: PROBE_CONNECT_TIMEOUT_S,
      backoff: () => 0,
      idle_timeout: 1,
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      connection: { application_name: `gatewayd:${this.options.instanceId ?? 'probe'}:probe` },
    });
    try {
      await conn`select 1`;
      if (this.downSince !== null) {
        this.options.log?.info({ downMs: Date.now() - this.downSince }, 'database reachable again');
        this.downSince = null;
      }
    } catch {
      // still down: the next probe tries again
    } finally {
      await conn.end({ timeout: 0 }).catch(() => undefined);
    }
  }
}

const attached = new WeakMap<object, DatabaseAvailability>();

/** Like the state cache, it hangs off the pool it watches: a pool without one (a test's, a tool's) is never "known down". */
export function attachAvailability(pool: object, availability: DatabaseAvailability): void {
  attached.set(pool, availability);
}

export function availabilityOf(pool: object): DatabaseAvailability | null {
  return attached.get(pool) ?? null;
}

/** Throws DatabaseDownError at once when `pool`'s database is known down; a transaction (not the pool) is never refused here. */
export function assertDatabaseUp(pool: object): void {
  attached.get(pool)?.assertUp();
}

/** `['database']` while `pool`'s database is known down. */
export function databaseDegraded(pool: object): string[] {
  return attached.get(pool)?.degradedSubsystems() ?? [];
}
