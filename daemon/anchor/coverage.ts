// Which anchor covers a trace: the anchored epoch whose checkpoint for the trace's project is the
// smallest one at or past the trace's sequence number (a checkpoint of size n commits to entries
// 1..n). A trace's flare_status and flare_tx_hash are read from here, never stored on the trace.
// Only ANCHORED epochs count: a trace covered by an epoch still in flight, or by one that failed,
// stays PENDING until some anchored epoch covers it (a later epoch covers every earlier entry).
import type { Sql, Tx } from '../db/connect.js';

export interface Coverage {
  readonly epoch: number;
  readonly leafIndex: number;
  readonly treeSize: number;
  readonly chainId: number;
  readonly txHash: string;
  readonly blockNumber: number | null;
}

interface CoverageRow {
  epoch: string;
  leaf_index: number;
  tree_size: string;
  chain_id: string;
  tx_hash: string;
  block_number: string | null;
}

const toCoverage = (r: CoverageRow): Coverage => ({
  epoch: Number(r.epoch),
  leafIndex: r.leaf_index,
  treeSize: Number(r.tree_size),
  chainId: Number(r.chain_id),
  txHash: r.tx_hash,
  blockNumber: r.block_number === null ? null : Number(r.block_number),
});

/** The anchor covering one trace, or null while none does. */
export async function anchorCovering(sql: Sql | Tx, projectId: string, sequenceNum: number): Promise<Coverage | null> {
  const [row] = await sql<CoverageRow[]>`
    select l.epoch, l.leaf_index, l.tree_size, e.chain_id, e.tx_hash, e.block_number
    from anchor_epoch_leaves l join anchor_epochs e on e.epoch = l.epoch
    where l.project_id = ${projectId} and l.tree_size >= ${sequenceNum} and e.state = 'ANCHORED'
    order by l.tree_size limit 1`;
  return row ? toCoverage(row) : null;
}

/** The anchors covering many traces of one project, keyed by sequence number (absent: none yet). */
export async function anchorsCovering(sql: Sql | Tx, projectId: string, sequenceNums: readonly number[]): Promise<Map<number, Coverage>> {
  const found = new Map<number, Coverage>();
  if (sequenceNums.length === 0) return found;
  const rows = await sql<(CoverageRow & { seq: string })[]>`
    select s.seq, c.*
    from unnest(${sequenceNums.map(String)}::bigint[]) as s(seq)
    cross join lateral (
      select l.epoch, l.leaf_index, l.tree_size, e.chain_id, e.tx_hash, e.block_number
      from anchor_epoch_leaves l join anchor_epochs e on e.epoch = l.epoch
      where l.project_id = ${projectId} and l.tree_size >= s.seq and e.state = 'ANCHORED'
      order by l.tree_size limit 1) c`;
  for (const r of rows) found.set(Number(r.seq), toCoverage(r));
  return found;
}
