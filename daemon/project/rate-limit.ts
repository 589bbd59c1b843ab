// Per-project rate limit from the project's plan: a fixed one-minute window counted in an unlogged
// table, so every daemon on the database draws from the same budget.
import { GatewayError } from '../../shared/errors.js';
import type { Sql } from '../db/connect.js';

export async function takeRateToken(sql: Sql, projectId: string, now = Date.now()): Promise<void> {
  const windowStart = new Date(Math.floor(now / 60_000) * 60_000);
  const [row] = await sql<{ count: number; limit: number }[]>`
    with bumped as (
      insert into rate_windows (project_id, window_start, count) values (${projectId}, ${windowStart}, 1)
      on conflict (project_id, window_start) do update set count = rate_windows.count + 1
      returning count)
    select bumped.count, p.rate_limit_per_minute as limit from bumped, projects p where p.id = ${projectId}`;
  if (row && row.count > row.limit) {
    const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + 60_000 - now) / 1000));
    throw new GatewayError('rate_limited', undefined, { 'Retry-After': String(retryAfter) });
  }
}

/** Old windows are useless after a minute; one daemon's sweep is enough, any daemon may do it. */
export async function sweepRateWindows(sql: Sql): Promise<void> {
  await sql`delete from rate_windows where window_start < now() - interval '5 minutes'`;
}
