// The last value this daemon read from the database for each piece of state verify and the MCP
// proxy decide on (credentials, project settings, policies, agents, servers, tools, rules, session
// bindings, the raw-original data key), with the time it was read. It is consulted only when the
// database is unreachable (docs/operations.md, "Degraded mode"): then a value read at most maxAgeMs ago is
// decided on, and anything older or never read is refused (503). readOrRecall() is the one place
// that decides "database unreachable -> fall back"; every other database error goes to the caller.
// Bounded: maxEntries, least recently read out first. Values are shared: callers must not mutate them.
import { availabilityOf, DatabaseDownError } from '../db/availability.js';
import { isDatabaseUnreachable } from '../db/unreachable.js';

export interface LastKnownLimits {
  /** A value read longer ago is not decided on (0: never decide from memory). */
  readonly maxAgeMs: number;
  readonly maxEntries: number;
}

export const DEFAULT_MAX_ENTRIES = 20_000;

interface Entry {
  readonly value: unknown;
  readonly readAt: number;
}

export interface LastKnownStats {
  /** Reads answered from memory because the database was unreachable. */
  recalled: number;
  /** Reads refused: unreachable database and nothing (fresh enough) in memory. */
  missing: number;
}

export class LastKnownState {
  readonly stats: LastKnownStats = { recalled: 0, missing: 0 };
  private readonly entries = new Map<string, Entry>();

  constructor(
    readonly limits: LastKnownLimits,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  remember(key: string, value: unknown): void {
    if (this.limits.maxAgeMs <= 0) return;
    this.entries.delete(key);
    this.entries.set(key, { value, readAt: this.now() });
    while (this.entries.size > this.limits.maxEntries) this.entries.delete(this.entries.keys().next().value!);
  }

  forget(key: string): void {
    this.entries.delete(key);
  }

  /** The value last read for `key` if it was read within maxAgeMs; otherwise nothing. */
  recall<T>(key: string): { readonly value: T } | null {
    const hit = this.entries.get(key);
    if (!hit || this.now() - hit.readAt > this.limits.maxAgeMs) {
      this.stats.missing += 1;
      return null;
    }
    this.stats.recalled += 1;
    return { value: hit.value as T };
  }
}

const attached = new WeakMap<object, LastKnownState>();

export function attachLastKnown(pool: object, store: LastKnownState): void {
  attached.set(pool, store);
}

export function lastKnownOf(pool: object): LastKnownState | null {
  return attached.get(pool) ?? null;
}

/**
 * Reads `key` with `load` from `pool`'s database and remembers it (a value `keep` refuses, e.g. an
 * unknown credential, is forgotten instead). While that database is known down, or when `load`
 * fails as unreachable (which marks it down), the value last read is returned if fresh enough;
 * otherwise the unreachable error is thrown (a governance route answers 503 with no body).
 * A pool without a store (a test's, a tool's, a transaction) just loads.
 */
export async function readOrRecall<T>(
  pool: object,
  key: string,
  load: () => Promise<T>,
  keep: (value: T) => boolean = () => true,
): Promise<T> {
  const store = attached.get(pool);
  if (!store) return load();
  const availability = availabilityOf(pool);
  if (availability?.down) return recallOrThrow(store, key, new DatabaseDownError());
  let value: T;
  try {
    value = await load();
  } catch (err) {
    if (!isDatabaseUnreachable(err)) throw err;
    availability?.markDown(err);
    return recallOrThrow(store, key, err);
  }
  if (keep(value)) store.remember(key, value);
  else store.forget(key);
  return value;
}

function recallOrThrow<T>(store: LastKnownState, key: string, err: unknown): T {
  const hit = store.recall<T>(key);
  if (hit) return hit.value;
  throw err;
}
