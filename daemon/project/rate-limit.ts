// Per-project rate limit from the project's plan: a fixed one-minute window counted in an unlogged
// table, so every daemon on the database draws from the same budget. Each request counts, admitted
// or refused; the request that takes the count past the limit and every later one in the minute are
// refused (429 rate_limited, Retry-After: the seconds left in the minute).
//
// A daemon does not write the shared count once per request. It keeps, per project, its view of
// the window: the shared count and limit as of its last exchange with the table (at most VIEW_MS
// old) plus what it admitted since. While that view stays within half the limit it admits from
// memory and adds its admissions to the table every FLUSH_MS, in one statement per project. Past
// half (or without a fresh view) each request adds itself, with what was admitted from memory, to
// the table and is decided on the count that returns. So within one daemon the limit is exact;
// across daemons, another daemon's last FLUSH_MS of admissions from memory may be missing from the
// count a decision sees (each admitted at most up to half the limit in its view). A request that
// may change a project's settings makes this daemon's view of that project stale (a new limit
// applies from its next request); other daemons see a new limit at their next exchange (within VIEW_MS).
// While the database is unreachable each daemon counts alone in memory (takeFromMemory): never a 5xx.
import { GatewayError } from '../../shared/errors.js';
import { availabilityOf } from '../db/availability.js';
import type { Sql } from '../db/connect.js';
import { isDatabaseUnreachable } from '../db/unreachable.js';

/** How often admissions from memory are added to the shared count. */
export const FLUSH_MS = 100;
/** A view older than this is not used: the next request exchanges with the table. */
export const VIEW_MS = 200;

const WINDOW_MS = 60_000;

interface View {
  readonly windowStart: number;
  /** The shared count at the last exchange (this daemon's admissions up to then included). */
  shared: number;
  limit: number;
  at: number;
  /** Admitted from memory since, not yet in the table. */
  pending: number;
  /** Exchanges begun before this forget() (see epoch) do not make the view fresh again. */
  staleBefore: number;
}

const windowOf = (now: number) => Math.floor(now / WINDOW_MS) * WINDOW_MS;

export class RateLimiter {
  private readonly views = new Map<string, View>();
  /** Counts sent to the table whose resulting count has not come back yet, per project. */
  private readonly sending = new Map<string, number>();
  /** Counts forget() calls: an exchange remembers the epoch it began in. */
  private epoch = 0;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: Sql,
    private readonly flushMs = FLUSH_MS,
    private readonly viewMs = VIEW_MS,
  ) {}

  /** Counts one request of the project; throws rate_limited when it is over the minute's limit. */
  async take(projectId: string, now = Date.now()): Promise<void> {
    const windowStart = windowOf(now);
    const view = this.views.get(projectId);
    const known = view ? view.shared + view.pending + (this.sending.get(projectId) ?? 0) : 0;
    if (view && view.windowStart === windowStart && now - view.at <= this.viewMs && (known + 1) * 2 <= view.limit) {
      view.pending += 1;
      this.timer ??= setTimeout(() => {
        void this.flush();
      }, this.flushMs).unref();
      return;
    }
    if (availabilityOf(this.sql)?.down) return this.takeFromMemory(projectId, windowStart, now);
    // Admissions a flush is adding right now were admitted before this request: the count it is
    // decided on must hold them, so a flush under way is waited for (its add could land after ours).
    // Meanwhile this request counts as on its way, so no admission from memory overlooks it.
    this.sending.set(projectId, (this.sending.get(projectId) ?? 0) + 1);
    try {
      await this.flushing;
    } finally {
      const left = this.sending.get(projectId)! - 1;
      if (left > 0) this.sending.set(projectId, left);
      else this.sending.delete(projectId);
    }
    const current = this.views.get(projectId);
    const carried = current && current.windowStart === windowStart ? current.pending : 0;
    if (current && carried > 0) current.pending -= carried;
    let row: Awaited<ReturnType<RateLimiter['exchange']>>;
    try {
      row = await this.exchange(projectId, windowStart, carried + 1, now);
    } catch (err) {
      if (current && carried > 0 && this.views.get(projectId) === current) current.pending += carried; // not counted: keep them for the next flush
      if (!isDatabaseUnreachable(err)) throw err;
      availabilityOf(this.sql)?.markDown(err);
      return this.takeFromMemory(projectId, windowStart, now);
    }
    if (!row) return; // no such project: nothing to limit by (as before)
    if (row.count > row.limit) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      throw new GatewayError('rate_limited', undefined, { 'Retry-After': String(retryAfter) });
    }
  }

  /**
   * The database is unreachable: this daemon counts alone, in memory, against the last limit it
   * learnt (none learnt: not limited), and adds its count to the table once the database is back.
   */
  private takeFromMemory(projectId: string, windowStart: number, now: number): void {
    let view = this.views.get(projectId);
    if (!view || view.windowStart !== windowStart) {
      view = { windowStart, shared: 0, limit: view?.limit ?? Infinity, at: -Infinity, pending: 0, staleBefore: 0 };
      this.views.set(projectId, view);
    }
    const known = view.shared + view.pending + (this.sending.get(projectId) ?? 0);
    view.pending += 1;
    this.timer ??= setTimeout(() => {
      void this.flush();
    }, this.flushMs).unref();
    if (known + 1 > view.limit) {
      const retryAfter = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
      throw new GatewayError('rate_limited', undefined, { 'Retry-After': String(retryAfter) });
    }
  }

  /** The project's settings may have changed: its next request exchanges with the table (carrying what waits). */
  forget(projectId: string): void {
    const view = this.views.get(projectId);
    if (!view) return;
    view.at = -Infinity;
    view.staleBefore = ++this.epoch;
  }

  /** Adds every admission from memory to the shared count; resolves when written (or given up on). */
  flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    if (availabilityOf(this.sql)?.down) {
      // Nothing to ask while the database is known down: the counts wait in memory.
      if ([...this.views.values()].some((v) => v.pending > 0))
        this.timer = setTimeout(() => {
          void this.flush();
        }, this.flushMs).unref();
      return this.flushing;
    }
    const due = [...this.views]
      .filter(([, v]) => v.pending > 0)
      .map(([projectId, v]) => {
        const n = v.pending;
        v.pending = 0;
        return { projectId, view: v, n };
      });
    if (due.length === 0) return this.flushing;
    this.flushing = this.flushing
      .then(() =>
        Promise.all(
          due.map(async ({ projectId, view, n }) => {
            try {
              await this.exchange(projectId, view.windowStart, n, Date.now());
            } catch {
              // Not counted yet: back into the view (if it is still this window's), tried again with the next flush.
              if (this.views.get(projectId) === view) {
                view.pending += n;
                this.timer ??= setTimeout(() => {
                  void this.flush();
                }, this.flushMs).unref();
              }
            }
          }),
        ),
      )
      .then(() => undefined);
    return this.flushing;
  }

  /**
   * Adds n to the table and learns the count that comes back. Until it is learnt, the n are counted
   * as on their way (sending), so that no admission from memory meanwhile overlooks them.
   */
  private async exchange(
    projectId: string,
    windowStart: number,
    n: number,
    now: number,
  ): Promise<{ count: number; limit: number } | undefined> {
    this.sending.set(projectId, (this.sending.get(projectId) ?? 0) + n);
    const began = this.epoch;
    try {
      const row = await this.add(projectId, windowStart, n);
      if (row) this.learn(projectId, windowStart, row, now, began);
      return row;
    } finally {
      const left = this.sending.get(projectId)! - n;
      if (left > 0) this.sending.set(projectId, left);
      else this.sending.delete(projectId);
    }
  }

  private learn(projectId: string, windowStart: number, row: { count: number; limit: number }, now: number, began: number): void {
    const view = this.views.get(projectId);
    if (view && view.windowStart === windowStart) {
      view.shared = Math.max(view.shared, row.count);
      if (began < view.staleBefore) return; // its limit may predate a change: the view stays stale
      view.limit = row.limit;
      view.at = Math.max(view.at, now);
      return;
    }
    if (view && view.windowStart > windowStart) return;
    if (view && view.pending > 0) void this.add(projectId, view.windowStart, view.pending).catch(() => undefined);
    this.views.set(projectId, { windowStart, shared: row.count, limit: row.limit, at: now, pending: 0, staleBefore: 0 });
  }

  /** Adds n to the project's window; the count after it and the project's limit (none: no such project). */
  private async add(projectId: string, windowStart: number, n: number): Promise<{ count: number; limit: number } | undefined> {
    const [row] = await this.sql<{ count: number; limit: number }[]>`
      with bumped as (
        insert into rate_windows (project_id, window_start, count) values (${projectId}, ${new Date(windowStart)}, ${n})
        on conflict (project_id, window_start) do update set count = rate_windows.count + excluded.count
        returning count)
      select bumped.count, p.rate_limit_per_minute as limit from bumped, projects p where p.id = ${projectId}`;
    return row;
  }
}

/** Old windows are useless after a minute; one daemon's sweep is enough, any daemon may do it. */
export async function sweepRateWindows(sql: Sql): Promise<void> {
  await sql`delete from rate_windows where window_start < now() - interval '5 minutes'`;
}
