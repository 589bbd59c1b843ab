// One anchor cycle, one daemon at a time across the database (an advisory lock of its own):
// first every open epoch (PENDING, SUBMITTED, FAILED) is moved on, oldest first; only when none is
// left open is a new epoch built from the checkpoints that grew, and sent. A node that stays down
// therefore leaves one epoch waiting, not one per tick, and nothing is lost: the next epoch
// commits to every checkpoint the waiting one did not.
import type { Sql } from '../db/connect.js';
import { withWorkerLock } from '../workers/periodic.js';
import { buildEpoch } from './build.js';
import { openEpochs, type EpochRow } from './epochs.js';
import { advanceEpoch, type SubmitContext } from './submit.js';

const LOCK_NAME = 'anchor';

/** Runs fn holding the anchor lock: waiting for it (run-now), or null at once when another daemon holds it (ticks). */
export async function withAnchorLock<T>(sql: Sql, wait: boolean, fn: () => Promise<T>): Promise<T | null> {
  if (!wait) return withWorkerLock(sql, LOCK_NAME, () => fn());
  return sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${'gw.worker.' + LOCK_NAME}, 0))`;
    return fn();
  }) as Promise<T>;
}

/** One cycle; returns the newest epoch it worked on, null when there was nothing to do. */
export async function runCycle(ctx: SubmitContext): Promise<EpochRow | null> {
  let last: EpochRow | null = null;
  let stillOpen = false;
  for (const open of await openEpochs(ctx.sql)) {
    if (ctx.signal.aborted) return last;
    last = await advanceEpoch(ctx, open);
    if (last.state !== 'ANCHORED') stillOpen = true;
  }
  if (stillOpen || ctx.signal.aborted) return last;
  const built = await buildEpoch(ctx.sql, ctx.chainId);
  if (!built) return last;
  ctx.log.info({ epoch: Number(built.epoch), leaves: built.leaf_count }, 'anchor epoch built');
  return advanceEpoch(ctx, built);
}
