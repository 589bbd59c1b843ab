// The state cache of one daemon: the cache (cache.ts), attached to the daemon's pool so that the
// proxy and the credential check find it, its LISTEN connection (listener.ts) and its metrics.
import type client from 'prom-client';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import { StateCache, type CacheLimits } from './cache.js';
import { attachStateCache } from './pool-attachment.js';
import { listenForState } from './listener.js';
import { registerStateCacheMetrics } from './metrics.js';

export interface RunningStateCache {
  readonly cache: StateCache;
  close(): Promise<void>;
}

/** Starts listening (first attempt awaited; the cache is bypassed until one succeeds). */
export async function startStateCache(
  sql: Sql,
  url: string,
  opts: { registry: client.Registry; log: Logger; instanceId: string; limits?: Partial<CacheLimits> },
): Promise<RunningStateCache> {
  const cache = new StateCache(opts.limits);
  attachStateCache(sql, cache);
  registerStateCacheMetrics(opts.registry, cache);
  const listener = listenForState(url, cache, opts.log.child({ subsystem: 'state-cache' }), { instanceId: opts.instanceId });
  await listener.started;
  return { cache, close: () => listener.close() };
}
