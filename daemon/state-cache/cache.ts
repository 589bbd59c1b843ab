// The daemon's in-process copy of the state the MCP proxy's gates read (servers, tools, rules,
// agents, session bindings, credentials with their project's stop, the project's tools/list
// mode), so a warm tools/call touches the database only to append its trace. It is only as fresh
// as the notifications it has seen (migrations 00015, 00016 and 00017, listener.ts), so four rules keep
// it honest:
//   - while the listener is not connected every read goes to the database, and each (re)connect
//     drops everything: notifications sent meanwhile were missed;
//   - a notification drops what its table feeds, for its project only;
//   - a value loaded while a notification for its project (or a reset) arrived is returned but
//     not kept: it may predate the write that notification announced (each project's generation
//     is the clock reading of its last notification, compared with the reading when loading began);
//   - entries are bounded (per project and in number of projects, least recently used out first)
//     and expire after maxAgeMs, a safety net for a notification lost without the connection
//     dropping.
// Values are shared between requests: callers must not mutate what they get.
// What each table's notification drops is table-feeds.ts's; which cache a pool has, pool-attachment.ts's.
import { ALL_KINDS, TABLE_FEEDS, type Kind } from './table-feeds.js';

export interface CacheLimits {
  readonly maxAgeMs: number;
  readonly maxEntriesPerProject: number;
  readonly maxProjects: number;
  readonly maxCredentials: number;
}

export const DEFAULT_LIMITS: CacheLimits = Object.freeze({
  maxAgeMs: 60_000,
  maxEntriesPerProject: 5_000,
  maxProjects: 1_000,
  maxCredentials: 10_000,
});

export interface CacheStats {
  hits: number;
  misses: number;
  /** Reads that went to the database because the listener was not connected. */
  bypassed: number;
  /** Loaded values not kept because a notification or reset arrived while loading. */
  discarded: number;
  notifications: number;
  resets: number;
}

interface Entry {
  readonly value: unknown;
  readonly storedAt: number;
}

interface CredentialEntry extends Entry {
  readonly projectId: string;
}

/** Generations of this many projects are remembered; beyond it they are forgotten as a reset. */
const MAX_GENERATIONS = 10_000;

const MAX_MARKERS = 64;

export class StateCache {
  readonly stats: CacheStats = { hits: 0, misses: 0, bypassed: 0, discarded: 0, notifications: 0, resets: 0 };
  private readonly limits: CacheLimits;
  private readonly now: () => number;
  private listening = false;
  private clock = 0;
  private lastReset = 0;
  private readonly generations = new Map<string, number>();
  private readonly projects = new Map<string, Map<string, Entry>>();
  private readonly credentials = new Map<string, CredentialEntry>();
  private readonly markers: string[] = [];
  private readonly watchers = new Set<ChangeWatcher>();

  constructor(limits: Partial<CacheLimits> = {}, now: () => number = Date.now) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    this.now = now;
  }

  /** True while the listener is connected: only then is anything served from memory. */
  get connected(): boolean {
    return this.listening;
  }

  get size(): number {
    let n = this.credentials.size;
    for (const entries of this.projects.values()) n += entries.size;
    return n;
  }

  /** The listener is (again) connected: what is cached may have missed notifications. */
  listenerUp(): void {
    this.reset();
    this.listening = true;
  }

  listenerDown(): void {
    this.listening = false;
    this.reset();
  }

  /**
   * One notification's payload, `{"t": table, "p": project id}`, or a marker `{"t": "marker", "m": id}`
   * (sent by whoever wants to know that this daemon has seen every change committed before it:
   * notifications arrive in commit order); anything else drops everything.
   */
  notified(payload: string): void {
    this.stats.notifications += 1;
    let parsed: { t?: unknown; p?: unknown; m?: unknown };
    try {
      parsed = JSON.parse(payload) as { t?: unknown; p?: unknown; m?: unknown };
    } catch {
      return this.reset();
    }
    if (parsed.t === 'marker' && typeof parsed.m === 'string') return this.marked(parsed.m);
    const feeds = typeof parsed.t === 'string' ? TABLE_FEEDS[parsed.t] : undefined;
    if (typeof parsed.p !== 'string' || feeds === undefined) return this.reset();
    this.invalidate(parsed.p, feeds);
    for (const w of this.watchers) w(parsed.t as string, parsed.p);
  }

  /**
   * Calls `w` after each notification with its table and project, and with (null, null) whenever
   * anything may have changed unseen (a reset: the listener came back, or an unreadable payload).
   * Returns the function that stops the calls.
   */
  watch(w: ChangeWatcher): () => void {
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  /**
   * This daemon changed `table` of `projectId` (or, with null, may have changed anything of it):
   * what a notification will say, applied now, so that the next request here reads the change
   * even if the notification is still on its way.
   */
  changed(projectId: string, table: string | null): void {
    this.invalidate(projectId, (table !== null ? TABLE_FEEDS[table] : undefined) ?? ALL_KINDS);
  }

  /** True once the marker notification `id` has arrived (the last MAX_MARKERS are remembered). */
  hasSeen(id: string): boolean {
    return this.markers.includes(id);
  }

  private marked(id: string): void {
    this.markers.push(id);
    if (this.markers.length > MAX_MARKERS) this.markers.shift();
  }

  /** The value of `key` (of `kind`) in `projectId`, from memory or from `load`. */
  async read<T>(projectId: string, kind: Kind, key: string, load: () => Promise<T>): Promise<T> {
    if (!this.listening) {
      this.stats.bypassed += 1;
      return load();
    }
    const fullKey = `${kind}\u0000${key}`;
    const entries = this.projects.get(projectId);
    const hit = entries?.get(fullKey);
    if (hit && this.fresh(hit)) {
      entries!.delete(fullKey);
      entries!.set(fullKey, hit);
      this.stats.hits += 1;
      return hit.value as T;
    }
    this.stats.misses += 1;
    const started = this.clock;
    const value = await load();
    if (this.unchangedSince(started, projectId)) this.store(projectId, fullKey, value);
    else this.stats.discarded += 1;
    return value;
  }

  /**
   * A credential by its token hash. Only found credentials are kept (a wrong token always asks the
   * database); the project is known only once loaded, so its generation is checked then.
   */
  async readCredential<T>(tokenHash: string, load: () => Promise<{ projectId: string; value: T } | null>): Promise<T | null> {
    if (!this.listening) {
      this.stats.bypassed += 1;
      return (await load())?.value ?? null;
    }
    const hit = this.credentials.get(tokenHash);
    if (hit && this.fresh(hit)) {
      this.credentials.delete(tokenHash);
      this.credentials.set(tokenHash, hit);
      this.stats.hits += 1;
      return hit.value as T;
    }
    this.stats.misses += 1;
    const started = this.clock;
    const loaded = await load();
    if (loaded === null) return null;
    if (this.unchangedSince(started, loaded.projectId)) {
      this.credentials.delete(tokenHash);
      this.credentials.set(tokenHash, { value: loaded.value, storedAt: this.now(), projectId: loaded.projectId });
      this.evictOldest(this.credentials, this.limits.maxCredentials);
    } else {
      this.stats.discarded += 1;
    }
    return loaded.value;
  }

  private fresh(e: Entry): boolean {
    return this.now() - e.storedAt < this.limits.maxAgeMs;
  }

  private unchangedSince(started: number, projectId: string): boolean {
    return this.listening && this.lastReset <= started && (this.generations.get(projectId) ?? 0) <= started;
  }

  private store(projectId: string, fullKey: string, value: unknown): void {
    let entries = this.projects.get(projectId);
    if (entries) {
      this.projects.delete(projectId);
    } else {
      entries = new Map();
    }
    this.projects.set(projectId, entries);
    entries.delete(fullKey);
    entries.set(fullKey, { value, storedAt: this.now() });
    this.evictOldest(entries, this.limits.maxEntriesPerProject);
    this.evictOldest(this.projects, this.limits.maxProjects);
  }

  private evictOldest<V>(map: Map<string, V>, max: number): void {
    while (map.size > max) map.delete(map.keys().next().value!);
  }

  private invalidate(projectId: string, feeds: readonly (Kind | 'credential')[]): void {
    this.clock += 1;
    if (!this.generations.has(projectId) && this.generations.size >= MAX_GENERATIONS) {
      // Forgetting a generation could let an in-flight load pass its check: count it as a reset of
      // in-flight loads (nothing cached needs to go for that).
      this.generations.clear();
      this.lastReset = this.clock;
    }
    this.generations.set(projectId, this.clock);
    if (feeds.includes('credential')) {
      for (const [hash, e] of this.credentials) if (e.projectId === projectId) this.credentials.delete(hash);
    }
    const entries = this.projects.get(projectId);
    if (!entries) return;
    for (const fullKey of entries.keys()) {
      if (feeds.includes(fullKey.slice(0, fullKey.indexOf('\u0000')) as Kind)) entries.delete(fullKey);
    }
  }

  private reset(): void {
    this.clock += 1;
    this.lastReset = this.clock;
    this.stats.resets += 1;
    this.generations.clear();
    this.projects.clear();
    this.credentials.clear();
    for (const w of this.watchers) w(null, null);
  }
}

/** Told of a change: a table of a project, or (null, null) for anything. */
export type ChangeWatcher = (table: string | null, projectId: string | null) => void;
