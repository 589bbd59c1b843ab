// A project's RFC 9162 Merkle tree over its trace chain, kept in PostgreSQL so that neither
// appending nor proving ever reads the whole chain:
//
//   - leaf i is leafHash(integrity hash bytes of the trace with sequence_num i + 1);
//   - merkle_state keeps the size and the "peaks" (hashes of the complete subtrees along the
//     right edge, largest first), enough to append and to compute the root;
//   - merkle_nodes keeps every complete subtree of 2^8 leaves or more, written as appends
//     complete them; smaller subtrees are recomputed from one block of 256 leaves when a proof
//     needs them.
import { nodeHash } from '../../shared/merkle.js';
import { traceLeafHash } from '../../shared/proof-check.js';
import type { Sql, Tx } from '../db/connect.js';

export const STORED_LEVEL_MIN = 8;
const BLOCK = 2 ** STORED_LEVEL_MIN;

export interface TreeState {
  size: number;
  /** One hash per set bit of size, highest level first. */
  peaks: Buffer[];
}

export interface CompletedNode {
  readonly level: number;
  readonly idx: number;
  readonly hash: Buffer;
}

/** Appends one leaf; reports every complete subtree of level >= STORED_LEVEL_MIN the append finished. */
export function appendLeaf(state: TreeState, leaf: Buffer, completed: CompletedNode[]): void {
  const index = state.size;
  let hash = leaf;
  let level = 0;
  let rest = index;
  while (rest % 2 === 1) {
    hash = nodeHash(state.peaks.pop()!, hash);
    level += 1;
    rest = Math.floor(rest / 2);
    if (level >= STORED_LEVEL_MIN) completed.push({ level, idx: Math.floor((index + 1) / 2 ** level) - 1, hash });
  }
  state.peaks.push(hash);
  state.size = index + 1;
}

/** The root of the tree the peaks describe (RFC 9162 MTH of all leaves so far). */
export function rootOf(state: TreeState): Buffer | null {
  if (state.size === 0) return null;
  let root = state.peaks[state.peaks.length - 1]!;
  for (let i = state.peaks.length - 2; i >= 0; i -= 1) root = nodeHash(state.peaks[i]!, root);
  return root;
}

export async function loadState(tx: Tx | Sql, projectId: string): Promise<TreeState> {
  const [row] = await tx<{ size: string; peaks: Buffer }[]>`select size, peaks from merkle_state where project_id = ${projectId}`;
  if (!row) return { size: 0, peaks: [] };
  const peaks: Buffer[] = [];
  for (let i = 0; i < row.peaks.length; i += 32) peaks.push(Buffer.from(row.peaks.subarray(i, i + 32)));
  return { size: Number(row.size), peaks };
}

export async function saveState(tx: Tx, projectId: string, state: TreeState, completed: readonly CompletedNode[]): Promise<void> {
  for (let i = 0; i < completed.length; i += 1000) {
    const rows = completed.slice(i, i + 1000).map((n) => ({ project_id: projectId, level: n.level, idx: n.idx, hash: n.hash }));
    await tx`insert into merkle_nodes ${tx(rows)}`;
  }
  await tx`
    insert into merkle_state (project_id, size, peaks, updated_at) values (${projectId}, ${state.size}, ${Buffer.concat(state.peaks)}, now())
    on conflict (project_id) do update set size = excluded.size, peaks = excluded.peaks, updated_at = now()`;
}

/** The largest power of two smaller than n (n >= 2); a loop, since float log2 misrounds near 2^53. */
function largestPowerOfTwoBelow(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

function levelOfPowerOfTwo(n: number): number | null {
  let level = 0;
  for (let k = 1; k <= n; k *= 2, level += 1) if (k === n) return level;
  return null;
}

/**
 * Reads subtree hashes for proofs: stored nodes for big subtrees, blocks of 256 leaves for small
 * ones. Every leaf comes from the traces table as it is now, so a row rewritten after the
 * checkpoint yields a path that no longer reaches the signed root.
 */
export class SubtreeReader {
  private readonly blocks = new Map<number, Buffer[]>();

  constructor(
    private readonly sql: Sql | Tx,
    private readonly projectId: string,
  ) {}

  /** RFC 9162 MTH of leaves [start, start + n). */
  async range(start: number, n: number): Promise<Buffer> {
    const level = levelOfPowerOfTwo(n);
    if (level !== null) return this.perfect(level, start / n);
    const k = largestPowerOfTwoBelow(n);
    return nodeHash(await this.range(start, k), await this.range(start + k, n - k));
  }

  /** RFC 9162 PATH(m, D[start : start + n]): sibling hashes from the leaf up. */
  async path(m: number, start: number, n: number): Promise<Buffer[]> {
    if (n <= 1) return [];
    const k = largestPowerOfTwoBelow(n);
    if (m < k) return [...(await this.path(m, start, k)), await this.range(start + k, n - k)];
    return [...(await this.path(m - k, start + k, n - k)), await this.range(start, k)];
  }

  private async perfect(level: number, idx: number): Promise<Buffer> {
    if (level >= STORED_LEVEL_MIN) {
      const [row] = await this.sql<{ hash: Buffer }[]>`
        select hash from merkle_nodes where project_id = ${this.projectId} and level = ${level} and idx = ${idx}`;
      if (!row) throw new Error(`merkle node ${level}/${idx} missing`);
      return row.hash;
    }
    const first = idx * 2 ** level;
    const leaves = await this.block(Math.floor(first / BLOCK));
    const from = first % BLOCK;
    let layer = leaves.slice(from, from + 2 ** level);
    if (layer.length !== 2 ** level) throw new Error(`leaves ${first}..${first + 2 ** level - 1} missing`);
    while (layer.length > 1) {
      const next: Buffer[] = [];
      for (let i = 0; i < layer.length; i += 2) next.push(nodeHash(layer[i]!, layer[i + 1]!));
      layer = next;
    }
    return layer[0]!;
  }

  private async block(b: number): Promise<Buffer[]> {
    let leaves = this.blocks.get(b);
    if (!leaves) {
      const rows = await this.sql<{ integrity_hash: string }[]>`
        select integrity_hash from traces where project_id = ${this.projectId}
          and sequence_num between ${b * BLOCK + 1} and ${(b + 1) * BLOCK} order by sequence_num`;
      leaves = rows.map((r) => traceLeafHash(r.integrity_hash));
      this.blocks.set(b, leaves);
    }
    return leaves;
  }
}
