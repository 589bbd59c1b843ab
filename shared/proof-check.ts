// The checks of a trace proof bundle that need nothing but the bundle and a public key: SHA-256
// and Ed25519. The daemon runs them when it answers POST /api/v1/verify-proof, and gatewayctl
// runs them again locally, so a reader need not trust the server's own verdict.
//
// Order (the first failure is the reason):
//   integrity_hash_mismatch       the header does not hash to integrity_hash (RFC 8785 + SHA-256)
//   checkpoint_signature_invalid  the checkpoint note is not signed by the key, or says another size/root/log
//   inclusion_proof_invalid       the RFC 9162 path does not lead from the trace's leaf to the checkpoint root
import { entryHash, isIntegrityHash } from './ledger-hash.js';
import { leafHash, verifyInclusion } from './merkle.js';
import { parseCheckpoint, parseVerifierKey, verifyNote } from './signed-note.js';

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
}

export interface BundleChecks {
  integrity_hash: CheckResult;
  checkpoint_signature: CheckResult;
  inclusion: CheckResult;
}

export interface BundleVerdict {
  readonly checks: BundleChecks;
  readonly reason: string | null;
  readonly detail: string | null;
}

/** The RFC 9162 leaf of a trace: leafHash over the 32 bytes of its integrity hash. */
export function traceLeafHash(integrityHash: string): Buffer {
  return leafHash(Buffer.from(integrityHash.slice('sha256:'.length), 'hex'));
}

function headerMatches(b: ProofBundle): boolean {
  const h = b.header;
  return isIntegrityHash(b.integrity_hash) && h.id === b.trace_id && h.project_id === b.project_id
    && h.sequence_num === b.sequence_num && h.prev_hash === b.prev_hash && h.content_hash === b.content_hash
    && entryHash(h) === b.integrity_hash;
}

function decodeHash(b64: string): Buffer | null {
  const buf = Buffer.from(b64, 'base64');
  return buf.length === 32 && buf.toString('base64') === b64 ? buf : null;
}

/** Checks a bundle against a verifier key (the caller's pinned key, else the one the bundle names). */
export function checkBundle(bundle: ProofBundle, vkey?: string): BundleVerdict {
  const checks: BundleChecks = { integrity_hash: 'not_checked', checkpoint_signature: 'not_checked', inclusion: 'not_checked' };
  const fail = (check: keyof BundleChecks, reason: string, detail: string): BundleVerdict => {
    checks[check] = 'failed';
    return { checks, reason, detail };
  };

  if (!headerMatches(bundle)) return fail('integrity_hash', 'integrity_hash_mismatch', 'the stored fields do not hash to the trace\'s integrity_hash');
  checks.integrity_hash = 'ok';

  const m = bundle.merkle;
  if (m === null) {
    checks.checkpoint_signature = 'pending';
    checks.inclusion = 'pending';
    return { checks, reason: null, detail: 'no checkpoint covers this trace yet' };
  }
  let key;
  try {
    key = parseVerifierKey(vkey ?? m.vkey);
  } catch {
    return fail('checkpoint_signature', 'checkpoint_signature_invalid', 'the verifier key is malformed');
  }
  const body = verifyNote(m.checkpoint, key);
  if (!body.ok) return fail('checkpoint_signature', 'checkpoint_signature_invalid', `checkpoint note: ${body.reason}`);
  let cp;
  try {
    cp = parseCheckpoint(body.body);
  } catch {
    return fail('checkpoint_signature', 'checkpoint_signature_invalid', 'the signed note is not a checkpoint');
  }
  const root = decodeHash(m.root);
  if (!cp.origin.endsWith(`/projects/${bundle.project_id}`) || cp.size !== m.tree_size || root === null || !cp.root.equals(root)) {
    return fail('checkpoint_signature', 'checkpoint_signature_invalid', 'the signed checkpoint names another log, size or root than the proof');
  }
  checks.checkpoint_signature = 'ok';

  const path = m.inclusion_path.map(decodeHash);
  if (m.leaf_index !== bundle.sequence_num - 1 || path.some((p) => p === null)
    || !verifyInclusion(m.leaf_index, m.tree_size, traceLeafHash(bundle.integrity_hash), path as Buffer[], root)) {
    return fail('inclusion', 'inclusion_proof_invalid', 'the inclusion path does not lead from the trace to the checkpoint root');
  }
  checks.inclusion = 'ok';
  return { checks, reason: null, detail: null };
}
