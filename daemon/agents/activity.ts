// Agent activity counters (last seen, requests today, total) for the command center. Requests are
// counted in memory and written once a second in one statement for all agents, so the hot path
// pays no database write per request. A crash loses at most the last second of counts.
import type { Sql } from '../db/connect.js';

interface Pending {
  projectId: string;
  count: number;
  lastSeen: Date;
}

export class AgentActivity {
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly sql: Sql,
    private readonly intervalMs = 1000,
  ) {}

  record(projectId: string, agentId: string, at = new Date()): void {
    const key = `${projectId}\u0000${agentId}`;
    const entry = this.pending.get(key);
    if (entry) {
      entry.count += 1;
      if (at > entry.lastSeen) entry.lastSeen = at;
    } else {
      this.pending.set(key, { projectId, count: 1, lastSeen: at });
    }
  }

  start(onError: (err: unknown) => void): void {
    this.timer = setInterval(() => {
      this.flush().catch(onError);
    }, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.flush();
  }

  /** Writes every pending count; counts that fail to write are put back for the next flush. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    const items = [...batch.entries()].map(([key, v]) => ({
      project_id: v.projectId,
      id: key.split('\u0000')[1]!,
      n: v.count,
      seen: v.lastSeen.toISOString(),
    }));
    try {
      await this.sql`
        update agents a set
          request_count = a.request_count + v.n,
          requests_today = case when a.requests_day = (v.seen at time zone 'utc')::date then a.requests_today + v.n else v.n end,
          requests_day = (v.seen at time zone 'utc')::date,
          last_seen_at = greatest(coalesce(a.last_seen_at, v.seen), v.seen)
        from jsonb_to_recordset(${this.sql.json(items)}) as v(project_id text, id text, n int, seen timestamptz)
        where a.id = v.id and a.project_id = v.project_id`;
    } catch (err) {
      for (const [key, v] of batch) {
        const now = this.pending.get(key);
        if (now) {
          now.count += v.count;
          if (v.lastSeen > now.lastSeen) now.lastSeen = v.lastSeen;
        } else this.pending.set(key, v);
      }
      throw err;
    }
  }
}
