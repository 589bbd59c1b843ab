// Checkpoints: every interval, each project whose trace chain grew gets its Merkle tree extended
// by the new entries and a new signed checkpoint (a C2SP signed note over origin, tree size and
// root). One daemon at a time does it (worker lock); a run takes at most MAX_LEAVES_PER_RUN new
// entries per project so a huge backlog is worked off in bounded transactions.
import { traceLeafHash } from '../../shared/proof-check.js';
import { formatCheckpoint, signNote } from '../../shared/signed-note.js';
import type { CheckpointKey } from '../crypto/checkpoint-key.js';
import type { Sql, Tx } from '../db/connect.js';
import { withWorkerLock } from '../workers/periodic.js';
import { appendLeaf, loadState, rootOf, saveState, type CompletedNode } from './merkle-store.js';

const MAX_LEAVES_PER_RUN = 1_000_000;

export interface StoredCheckpoint {
  readonly project_id: string;
  readonly tree_size: number;
  readonly root: Buffer;
  readonly note: string;
  readonly key_name: string;
  readonly key_id: string;
  readonly created_at: Date;
}

export function projectOrigin(ledgerOrigin: string, projectId: string): string {
  return `${ledgerOrigin}/projects/${projectId}`;
}

/** Extends one project's tree to its chain head (bounded) and signs a checkpoint; null when nothing grew. */
async function checkpointProject(tx: Tx, key: CheckpointKey, ledgerOrigin: string, projectId: string): Promise<StoredCheckpoint | null> {
  const state = await loadState(tx, projectId);
  const [head] = await tx<{ seq: string }[]>`select seq from ledger_heads where project_id = ${projectId} and stream = 'traces'`;
  const target = Math.min(Number(head?.seq ?? 0), state.size + MAX_LEAVES_PER_RUN);
  if (target <= state.size) return null;
  const completed: CompletedNode[] = [];
  const rows = tx<{ sequence_num: string; integrity_hash: string }[]>`
    select sequence_num, integrity_hash from traces
    where project_id = ${projectId} and sequence_num > ${state.size} and sequence_num <= ${target}
    order by sequence_num`;
  for await (const batch of rows.cursor(5000)) {
    for (const row of batch) {
      if (Number(row.sequence_num) !== state.size + 1) throw new Error(`trace chain of ${projectId} has a gap at ${state.size + 1}`);
      appendLeaf(state, traceLeafHash(row.integrity_hash), completed);
    }
  }
  const root = rootOf(state)!;
  const signed = signNote(formatCheckpoint({ origin: projectOrigin(ledgerOrigin, projectId), size: state.size, root }), key);
  await saveState(tx, projectId, state, completed);
  const [stored] = await tx<StoredCheckpoint[]>`
    insert into checkpoints (project_id, tree_size, root, note, key_name, key_id)
    values (${projectId}, ${state.size}, ${root}, ${signed.note}, ${key.name}, ${signed.keyId})
    returning *`;
  return { ...stored!, tree_size: Number(stored!.tree_size) };
}

/** One checkpoint pass over every project that grew; returns the checkpoints written (empty when another daemon ran it). */
export async function runCheckpoints(sql: Sql, key: CheckpointKey, ledgerOrigin: string): Promise<StoredCheckpoint[]> {
  const projects = await sql<{ project_id: string }[]>`
    select h.project_id from ledger_heads h left join merkle_state m on m.project_id = h.project_id
    where h.stream = 'traces' and h.seq > coalesce(m.size, 0) order by h.project_id`;
  const written: StoredCheckpoint[] = [];
  for (const { project_id } of projects) {
    const done = await withWorkerLock(sql, `checkpoint.${project_id}`, (tx) => checkpointProject(tx, key, ledgerOrigin, project_id));
    if (done) written.push(done);
  }
  return written;
}

export async function latestCheckpoint(sql: Sql | Tx, projectId: string): Promise<StoredCheckpoint | null> {
  const [row] = await sql<StoredCheckpoint[]>`
    select * from checkpoints where project_id = ${projectId} order by tree_size desc limit 1`;
  return row ? { ...row, tree_size: Number(row.tree_size) } : null;
}
