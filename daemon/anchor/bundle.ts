// The anchoring part of a trace's proof bundle: where the covering checkpoint sits in its epoch's
// tree (RFC 9162 inclusion to the anchored root) and the transaction that carries that root. The
// epoch tree is rebuilt from the stored checkpoints in leaf_index order; if it no longer hashes to
// the root that was anchored, the database was changed behind the ledger's back: the bundle still
// goes out (its epoch_inclusion check fails) and rootMatches says so.
import { ANCHOR_CALLDATA_LAYOUT, encodeAnchorCalldata, epochLeafHash, noteBody } from '../../shared/anchor-format.js';
import { inclusionProof, rootFromLeaves } from '../../shared/merkle.js';
import type { AnchorProof, EpochProof } from '../../shared/proof-check.js';
import type { Sql, Tx } from '../db/connect.js';
import type { Coverage } from './coverage.js';

/** Flare mainnet and its Coston2 testnet; any other chain is a plain EVM ledger. */
const FLARE_CHAIN_IDS = new Set([14, 114]);

export interface StoredEpoch {
  readonly epoch: number;
  readonly root: Buffer;
  readonly leafCount: number;
  readonly chainId: number;
  readonly state: string;
  readonly txHash: string;
  readonly blockNumber: number | null;
}

export interface EpochLeaf {
  readonly leafIndex: number;
  /** The checkpoint's signed note as stored. */
  readonly note: string;
}

export interface AnchorSections {
  readonly epoch: EpochProof;
  readonly anchor: AnchorProof;
  /** False when the stored leaves no longer hash to the stored (anchored) root. */
  readonly rootMatches: boolean;
}

/** Builds the epoch and anchor sections from an epoch's stored leaves; pure. */
export function anchorSections(stored: StoredEpoch, leaves: readonly EpochLeaf[], leafIndex: number): AnchorSections {
  const ordered = [...leaves].sort((x, y) => x.leafIndex - y.leafIndex);
  // A note without a body cannot be a leaf; its empty stand-in keeps the tree the right size and the root wrong.
  const bodies = ordered.map((l) => noteBody(l.note) ?? '');
  const hashes = bodies.map(epochLeafHash);
  const position = ordered.findIndex((l) => l.leafIndex === leafIndex);
  const contiguous = ordered.every((l, i) => l.leafIndex === i);
  const rootMatches = contiguous && hashes.length === stored.leafCount && rootFromLeaves(hashes).equals(stored.root);
  return {
    epoch: {
      epoch: stored.epoch,
      leaf_index: leafIndex,
      leaf_count: stored.leafCount,
      inclusion_path: position < 0 ? [] : inclusionProof(position, hashes).map((h) => h.toString('base64')),
      root: `0x${stored.root.toString('hex')}`,
      checkpoint_body: position < 0 ? '' : bodies[position]!,
    },
    anchor: {
      ledger: FLARE_CHAIN_IDS.has(stored.chainId) ? 'flare' : 'evm',
      chain_id: stored.chainId,
      state: stored.state,
      tx_hash: stored.txHash,
      block_number: stored.blockNumber,
      calldata_layout: ANCHOR_CALLDATA_LAYOUT,
      calldata: encodeAnchorCalldata({ epoch: BigInt(stored.epoch), root: stored.root }),
    },
    rootMatches,
  };
}

/** The sections for a trace the coverage (daemon/anchor/coverage.ts anchorCovering) found anchored. */
export async function readAnchorSections(sql: Sql | Tx, coverage: Coverage): Promise<AnchorSections> {
  const [row] = await sql<{ root: Buffer; leaf_count: number; state: string }[]>`
    select root, leaf_count, state from anchor_epochs where epoch = ${coverage.epoch}`;
  const leaves = await sql<{ leaf_index: number; note: string }[]>`
    select l.leaf_index, c.note from anchor_epoch_leaves l
    join checkpoints c on c.project_id = l.project_id and c.tree_size = l.tree_size
    where l.epoch = ${coverage.epoch} order by l.leaf_index`;
  const stored: StoredEpoch = {
    epoch: coverage.epoch,
    root: row!.root,
    leafCount: row!.leaf_count,
    chainId: coverage.chainId,
    state: row!.state,
    txHash: coverage.txHash,
    blockNumber: coverage.blockNumber,
  };
  return anchorSections(
    stored,
    leaves.map((l) => ({ leafIndex: l.leaf_index, note: l.note })),
    coverage.leafIndex,
  );
}
