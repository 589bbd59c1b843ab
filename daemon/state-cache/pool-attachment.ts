// Which state cache belongs to which database pool: readers find the cache from the pool they hold.
import type { StateCache } from './cache.js';

const attached = new WeakMap<object, StateCache>();

/**
 * The cache is a copy of one database's state, so it hangs off that database's pool: every reader
 * already holds the pool, and a pool without a cache (a test's own, a tool's) reads the database.
 */
export function attachStateCache(pool: object, cache: StateCache): void {
  attached.set(pool, cache);
}

export function stateCacheOf(pool: object): StateCache | null {
  return attached.get(pool) ?? null;
}
