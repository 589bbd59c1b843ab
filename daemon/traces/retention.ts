// Retention: trace content (prompts, payloads, the salt, any sealed raw original) older than the
// lesser of the project's retention_days and its tier's cap is deleted. Trace rows, their hashes,
// the Merkle tree and checkpoints stay, so the chain and every proof still verify; the deletion is
// itself an entry of the project's admin-action log (`retention.purge`, actor system). One daemon
// at a time runs it (worker lock); each run deletes in bounded batches.
import type { Sql, Tx } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { adminEntry, SYSTEM_ACTOR } from '../project/admin-actions.js';
import { withWorkerLock } from '../workers/periodic.js';

/** Longest content retention each plan allows, in days; a tier not listed gets DEFAULT_TIER_CAP_DAYS. */
export const TIER_RETENTION_CAP_DAYS: Readonly<Record<string, number>> = {
  free: 30,
  team: 365,
  business: 1095,
  enterprise: 3650,
};
export const DEFAULT_TIER_CAP_DAYS = 30;
const BATCH = 10_000;

export function retentionDays(retentionSetting: number, tier: string): { days: number; tierCapDays: number } {
  const tierCapDays = TIER_RETENTION_CAP_DAYS[tier] ?? DEFAULT_TIER_CAP_DAYS;
  return { days: Math.min(retentionSetting, tierCapDays), tierCapDays };
}

export interface Purge {
  readonly project_id: string;
  readonly cutoff: string;
  readonly deleted: number;
  readonly days: number;
}

async function purgeProject(tx: Tx, project: { id: string; retention_days: number; tier: string }, now: Date): Promise<Purge | null> {
  const { days, tierCapDays } = retentionDays(project.retention_days, project.tier);
  const cutoff = new Date(now.getTime() - days * 86_400_000);
  let deleted = 0;
  let oldest: number | null = null;
  let newest: number | null = null;
  for (;;) {
    const rows = await tx<{ sequence_num: string }[]>`
      with doomed as (
        select trace_id from trace_content where project_id = ${project.id} and created_at < ${cutoff} limit ${BATCH}
      ), gone as (
        delete from trace_content c using doomed d where c.trace_id = d.trace_id returning c.trace_id
      )
      select t.sequence_num from gone g join traces t on t.id = g.trace_id`;
    for (const r of rows) {
      const seq = Number(r.sequence_num);
      oldest = oldest === null ? seq : Math.min(oldest, seq);
      newest = newest === null ? seq : Math.max(newest, seq);
    }
    deleted += rows.length;
    if (rows.length < BATCH) break;
  }
  if (deleted === 0) return null;
  await appendAdmin(tx, project.id, [
    adminEntry(SYSTEM_ACTOR, {
      action: 'retention.purge',
      activity: 'delete',
      targetType: 'trace_content',
      targetId: null,
      details: {
        cutoff: cutoff.toISOString(),
        deleted,
        first_sequence_num: oldest,
        last_sequence_num: newest,
        retention_days: project.retention_days,
        tier: project.tier,
        tier_cap_days: tierCapDays,
      },
    }),
  ]);
  return { project_id: project.id, cutoff: cutoff.toISOString(), deleted, days };
}

/** One retention pass over every project; empty when another daemon holds the worker lock. */
export async function runRetention(sql: Sql, now: Date = new Date()): Promise<Purge[]> {
  const done = await withWorkerLock(sql, 'retention', async (tx) => {
    const projects = await tx<{ id: string; retention_days: number; tier: string }[]>`
      select id, retention_days, tier from projects order by id`;
    const purges: Purge[] = [];
    for (const p of projects) {
      const purge = await purgeProject(tx, p, now);
      if (purge) purges.push(purge);
    }
    return purges;
  });
  return done ?? [];
}
