// The anchor_epochs rows: reading them, their JSON shape on the routes, and the few state writes
// the worker makes. What an epoch commits to (root, leaf count, chain) is fixed at insert (build.ts)
// and a trigger refuses to change it; here only the transaction bookkeeping moves.
import type { EpochJson, EpochState } from '../../shared/anchor-format.js';
import type { Sql, Tx } from '../db/connect.js';
import { emitToAttestingProjects } from '../notifications/emit.js';
import { anchoringDegraded } from '../notifications/events.js';
import type { Fees } from './chain.js';

export interface EpochRow {
  epoch: string;
  state: EpochState;
  root: Buffer;
  leaf_count: number;
  chain_id: string;
  from_address: string | null;
  nonce: string | null;
  tx_hash: string | null;
  tx_hashes: string[];
  attempts: number;
  max_fee_per_gas: string | null;
  max_priority_fee_per_gas: string | null;
  block_number: string | null;
  block_time: Date | null;
  last_error: string | null;
  created_at: Date;
  submitted_at: Date | null;
  anchored_at: Date | null;
}

const iso = (d: Date | null): string | null => (d ? d.toISOString() : null);

export function epochJson(r: EpochRow): EpochJson {
  return {
    epoch: Number(r.epoch),
    state: r.state,
    root: `0x${r.root.toString('hex')}`,
    leaf_count: r.leaf_count,
    chain_id: Number(r.chain_id),
    tx_hash: r.tx_hash,
    tx_hashes: r.tx_hashes,
    block_number: r.block_number === null ? null : Number(r.block_number),
    block_time: iso(r.block_time),
    attempts: r.attempts,
    last_error: r.last_error,
    created_at: r.created_at.toISOString(),
    submitted_at: iso(r.submitted_at),
    anchored_at: iso(r.anchored_at),
  };
}

/** Epochs not yet anchored, oldest first: the worker finishes these before building another. */
export function openEpochs(sql: Sql): Promise<EpochRow[]> {
  return sql<EpochRow[]>`select * from anchor_epochs where state <> 'ANCHORED' order by epoch`;
}

export async function epochByNumber(sql: Sql, epoch: number | string): Promise<EpochRow> {
  const [row] = await sql<EpochRow[]>`select * from anchor_epochs where epoch = ${String(epoch)}`;
  return row!;
}

export function recentEpochs(sql: Sql, limit: number): Promise<EpochRow[]> {
  return sql<EpochRow[]>`select * from anchor_epochs order by epoch desc limit ${limit}`;
}

export async function lastAnchored(sql: Sql): Promise<EpochRow | null> {
  const [row] = await sql<EpochRow[]>`select * from anchor_epochs where state = 'ANCHORED' order by epoch desc limit 1`;
  return row ?? null;
}

/**
 * A write that may turn anchoring degraded (status.ts: an open epoch with an error, or FAILED): when
 * anchoring was healthy before it, anchoring.degraded is queued for the attesting projects in the
 * same transaction, so it is told once per turn, not once per failed cycle.
 */
async function degrading(sql: Sql, write: (tx: Tx) => Promise<EpochRow>): Promise<EpochRow> {
  return sql.begin(async (tx) => {
    const [before] = await tx<{ degraded: boolean }[]>`
      select exists (select 1 from anchor_epochs where state <> 'ANCHORED' and (last_error is not null or state = 'FAILED')) as degraded`;
    const row = await write(tx);
    if (!before!.degraded && row.last_error !== null)
      await emitToAttestingProjects(
        tx,
        'anchoring.degraded',
        anchoringDegraded({ epoch: row.epoch, state: row.state, reason: row.last_error }),
      );
    return row;
  }) as Promise<EpochRow>;
}

/** A transaction was sent (or may have been: no answer); recorded before waiting for its receipt. */
export async function recordSent(
  sql: Sql,
  epoch: string,
  tx: { hash: string; from: string; nonce: number; fees: Fees },
  maybeError: string | null,
): Promise<EpochRow> {
  return degrading(sql, async (t) => {
    const [row] = await t<EpochRow[]>`
      update anchor_epochs set state = 'SUBMITTED', from_address = ${tx.from}, nonce = ${tx.nonce}, tx_hash = ${tx.hash},
        tx_hashes = array_append(tx_hashes, ${tx.hash}::text), attempts = attempts + 1,
        max_fee_per_gas = ${tx.fees.maxFeePerGas.toString()}, max_priority_fee_per_gas = ${tx.fees.maxPriorityFeePerGas.toString()},
        submitted_at = coalesce(submitted_at, now()), last_error = ${maybeError}, updated_at = now()
      where epoch = ${epoch} returning *`;
    return row!;
  });
}

export async function recordAnchored(sql: Sql, epoch: string, hash: string, blockNumber: bigint, blockTime: Date): Promise<EpochRow> {
  const [row] = await sql<EpochRow[]>`
    update anchor_epochs set state = 'ANCHORED', tx_hash = ${hash}, block_number = ${blockNumber.toString()}, block_time = ${blockTime},
      anchored_at = now(), last_error = null, updated_at = now()
    where epoch = ${epoch} returning *`;
  return row!;
}

export async function recordFailed(sql: Sql, epoch: string, error: string): Promise<EpochRow> {
  return degrading(sql, async (tx) => {
    const [row] = await tx<EpochRow[]>`
      update anchor_epochs set state = 'FAILED', last_error = ${error}, updated_at = now()
      where epoch = ${epoch} returning *`;
    return row!;
  });
}

/** The cycle could not move the epoch on; its state stays, the reason is kept for health and status. */
export async function recordError(sql: Sql, epoch: string, error: string): Promise<EpochRow> {
  return degrading(sql, async (tx) => {
    const [row] = await tx<EpochRow[]>`
      update anchor_epochs set last_error = ${error}, updated_at = now() where epoch = ${epoch} returning *`;
    return row!;
  });
}
