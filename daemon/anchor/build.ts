// Building an epoch: for each project with attestation enabled, its newest signed checkpoint when
// that is larger than anything of the project already anchored (or on its way); one RFC 9162 tree
// over their bodies in project-id byte order; the epoch row (PENDING) and its leaves in one
// transaction. Only the anchor worker calls this, under its lock, so epoch numbers run 1, 2, 3...
import { compareProjectIds, epochLeafHash, noteBody } from '../../shared/anchor-format.js';
import { rootFromLeaves } from '../../shared/merkle.js';
import type { Sql } from '../db/connect.js';
import type { EpochRow } from './epochs.js';

export interface EpochLeaf {
  readonly projectId: string;
  readonly treeSize: number;
  readonly body: string;
}

/** The checkpoints the next epoch would commit to, in leaf order (empty: nothing grew). */
export async function collectLeaves(sql: Sql): Promise<EpochLeaf[]> {
  const rows = await sql<{ project_id: string; tree_size: string; note: string }[]>`
    select c.project_id, c.tree_size, c.note from (
      select distinct on (project_id) project_id, tree_size, note from checkpoints
      where project_id in (select id from projects where attestation_enabled)
      order by project_id, tree_size desc) c
    where c.tree_size > coalesce((select max(l.tree_size) from anchor_epoch_leaves l where l.project_id = c.project_id), 0)`;
  const leaves = rows.map((r) => {
    const body = noteBody(r.note);
    if (body === null) throw new Error(`checkpoint ${r.project_id}/${r.tree_size} is not a signed note`);
    return { projectId: r.project_id, treeSize: Number(r.tree_size), body };
  });
  return leaves.sort((a, b) => compareProjectIds(a.projectId, b.projectId));
}

export function epochRoot(leaves: readonly EpochLeaf[]): Buffer {
  return rootFromLeaves(leaves.map((l) => epochLeafHash(l.body)));
}

/** Inserts the next epoch over `leaves` (PENDING) with its leaf rows; null when there are none. */
export async function buildEpoch(sql: Sql, chainId: number): Promise<EpochRow | null> {
  const leaves = await collectLeaves(sql);
  if (leaves.length === 0) return null;
  const root = epochRoot(leaves);
  return sql.begin(async (tx) => {
    const [row] = await tx<EpochRow[]>`
      insert into anchor_epochs (epoch, state, root, leaf_count, chain_id)
      select coalesce(max(epoch), 0) + 1, 'PENDING', ${root}, ${leaves.length}, ${chainId} from anchor_epochs
      returning *`;
    await tx`
      insert into anchor_epoch_leaves ${tx(leaves.map((l, i) => ({ epoch: row!.epoch, leaf_index: i, project_id: l.projectId, tree_size: l.treeSize })))}`;
    return row!;
  }) as Promise<EpochRow>;
}
