// A trace's proof bundle (POST /api/v1/verify-proof) and the checks on it that need no hashing:
// the shapes, and the comparisons and failure wording that gatewayctl's check (proof-check.ts,
// node:crypto) and the web console's (proof-check-web.ts, Web Crypto) share. No node: modules.
import { decodeBase64 } from './note-text.js';

export type CheckResult = 'ok' | 'failed' | 'pending' | 'not_checked';

export interface MerkleProof {
  readonly algorithm: 'rfc9162-sha256';
  readonly leaf_index: number;
  readonly tree_size: number;
  /** Base64 sibling hashes from the leaf up. */
  readonly inclusion_path: string[];
  /** Base64 root of the tree of tree_size leaves. */
  readonly root: string;
  /** The C2SP signed note that commits to (origin, tree_size, root). */
  readonly checkpoint: string;
  readonly checkpoint_created_at: string;
  /** The signer's verifier key (`name+keyid+base64key`) as the server holds it. */
  readonly vkey: string;
}

/** Where the checkpoint sits in the epoch tree that was anchored (shared/anchor-format.ts). */
export interface EpochProof {
  readonly epoch: number;
  readonly leaf_index: number;
  readonly leaf_count: number;
  /** Base64 sibling hashes from the checkpoint's leaf up. */
  readonly inclusion_path: string[];
  /** 0x-prefixed hex root of the epoch tree, as sent on chain. */
  readonly root: string;
  /** The body of merkle.checkpoint (the signed text, without signature lines): the leaf's data. */
  readonly checkpoint_body: string;
}

/** The transaction that carries the epoch root. */
export interface AnchorProof {
  readonly ledger: 'flare' | 'evm';
  readonly chain_id: number;
  readonly state: string;
  readonly tx_hash: string;
  readonly block_number: number | null;
  readonly calldata_layout: string;
  /** 0x-prefixed hex calldata the transaction must carry. */
  readonly calldata: string;
}

export interface ProofBundle {
  readonly trace_id: string;
  readonly project_id: string;
  readonly sequence_num: number;
  readonly integrity_hash: string;
  readonly prev_hash: string;
  readonly content_hash: string;
  /** Every hashed column of the trace row, exactly as hashed. */
  readonly header: Record<string, unknown>;
  /** Null until a checkpoint covers the trace. */
  readonly merkle: MerkleProof | null;
  /** As on the trace: ANCHORED when epoch/anchor cover it, PENDING while anchoring is on and none does, null when off. */
  readonly flare_status?: 'PENDING' | 'ANCHORED' | null;
  /** Null until an anchored epoch covers the trace (absent from bundles older than anchoring: null). */
  readonly epoch?: EpochProof | null;
  readonly anchor?: AnchorProof | null;
}

export interface BundleChecks {
  integrity_hash: CheckResult;
  checkpoint_signature: CheckResult;
  inclusion: CheckResult;
  epoch_inclusion: CheckResult;
  anchor_calldata: CheckResult;
}

/** The offline steps in the order the first failure is taken. */
export const BUNDLE_STEPS = ['integrity_hash', 'checkpoint_signature', 'inclusion', 'epoch_inclusion', 'anchor_calldata'] as const;

export interface BundleVerdict {
  readonly checks: BundleChecks;
  readonly reason: string | null;
  readonly detail: string | null;
}

export const INTEGRITY_MISMATCH = "the stored fields do not hash to the trace's integrity_hash";
export const CHECKPOINT_MISMATCH = 'the signed checkpoint names another log, size or root than the proof';
export const INCLUSION_MISMATCH = 'the inclusion path does not lead from the trace to the checkpoint root';

/** The header names this trace and the bundle's hashes (whether it hashes to integrity_hash is the caller's). */
export function headerFieldsMatch(b: ProofBundle): boolean {
  const h = b.header;
  return (
    typeof b.integrity_hash === 'string'
    && /^sha256:[0-9a-f]{64}$/.test(b.integrity_hash)
    && h.id === b.trace_id
    && h.project_id === b.project_id
    && h.sequence_num === b.sequence_num
    && h.prev_hash === b.prev_hash
    && h.content_hash === b.content_hash
  );
}

/** A 32-byte hash in canonical base64, or null. */
export function decodeHash32(b64: unknown): Uint8Array | null {
  if (typeof b64 !== 'string') return null;
  const bytes = decodeBase64(b64);
  return bytes !== null && bytes.length === 32 ? bytes : null;
}

/** The signed checkpoint states this project's log, the proof's tree size and its root. */
export function checkpointMatches(
  bundle: ProofBundle,
  m: MerkleProof,
  cp: { readonly origin: string; readonly size: number; readonly root: Uint8Array },
): boolean {
  const root = decodeHash32(m.root);
  return (
    cp.origin.endsWith(`/projects/${bundle.project_id}`)
    && cp.size === m.tree_size
    && root !== null
    && cp.root.length === root.length
    && cp.root.every((b, i) => b === root[i])
  );
}

/** One step's outcome: ok, or the reason and detail of the first failure. */
export type Step = { ok: true } | { ok: false; reason: string; detail: string };
export const OK: Step = { ok: true };

/**
 * Every check not_checked, and `run`, which records a step's result and answers the verdict when it
 * failed (null when it passed): the first failure is the reason.
 */
export function stepRecorder(): { checks: BundleChecks; run: (check: keyof BundleChecks, step: Step) => BundleVerdict | null } {
  const checks: BundleChecks = {
    integrity_hash: 'not_checked',
    checkpoint_signature: 'not_checked',
    inclusion: 'not_checked',
    epoch_inclusion: 'not_checked',
    anchor_calldata: 'not_checked',
  };
  const run = (check: keyof BundleChecks, step: Step): BundleVerdict | null => {
    checks[check] = step.ok ? 'ok' : 'failed';
    return step.ok ? null : { checks, reason: step.reason, detail: step.detail };
  };
  return { checks, run };
}
