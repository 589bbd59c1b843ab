// The state cache's counters on /metrics: hits, misses, reads that bypassed it (listener not
// connected), loads not kept (a notification arrived meanwhile), notifications, resets, entries.
import client from 'prom-client';
import type { CacheStats, StateCache } from './cache.js';

const COUNTERS: readonly [keyof CacheStats, string][] = [
  ['hits', 'State cache reads answered from memory'],
  ['misses', 'State cache reads loaded from the database while the listener was connected'],
  ['bypassed', 'State cache reads sent to the database because the listener was not connected'],
  ['discarded', 'Loaded values not kept because a notification or reset arrived while loading'],
  ['notifications', 'gateway_state notifications received'],
  ['resets', 'Times the whole cache was dropped (listener connected or lost, unreadable notification)'],
];

export function registerStateCacheMetrics(registry: client.Registry, cache: StateCache): void {
  for (const [key, help] of COUNTERS) {
    new client.Counter({
      name: `gateway_state_cache_${key}_total`,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(cache.stats[key]);
      },
    });
  }
  new client.Gauge({
    name: 'gateway_state_cache_entries',
    help: 'Entries held by the state cache',
    registers: [registry],
    collect() {
      this.set(cache.size);
    },
  });
  new client.Gauge({
    name: 'gateway_state_cache_listening',
    help: '1 while the state cache listener is connected (else every read goes to the database)',
    registers: [registry],
    collect() {
      this.set(cache.connected ? 1 : 0);
    },
  });
}
