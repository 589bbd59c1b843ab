// The checks of a trace proof bundle that need nothing but the bundle and a public key: SHA-256
// and Ed25519. The daemon runs them when it answers POST /api/v1/verify-proof, and gatewayctl
// runs them again locally, so a reader need not trust the server's own verdict.
//
// Order (the first failure is the reason):
//   integrity_hash_mismatch       the header does not hash to integrity_hash (RFC 8785 + SHA-256)
//   checkpoint_signature_invalid  the checkpoint note is not signed by the key, or says another size/root/log
//   inclusion_proof_invalid       the RFC 9162 path does not lead from the trace's leaf to the checkpoint root
//   epoch_inclusion_invalid       the checkpoint's body (epoch.checkpoint_body, which must be the signed
//                                 note's body) is not leaf leaf_index of the epoch tree with root epoch.root
//   anchor_calldata_mismatch      anchor.calldata is not "GWA1" || u64be epoch.epoch || epoch.root
//
// A trace no checkpoint covers yet has merkle null: its checkpoint and inclusion checks are
// "pending" and the later ones are not reached. A trace no anchored epoch covers has epoch and
// anchor null: their checks are "pending" when flare_status says anchoring is on (PENDING), else
// "not_checked" (anchoring off). Pending is never a failure; the caller decides what it is worth.
// Whether the anchor transaction is on chain is the one step this module cannot check offline
// (shared/anchor-rpc-check.ts does it with one RPC call).
import { decodeAnchorCalldata, epochLeafHash, noteBody } from './anchor-format.js';
import { entryHash } from './ledger-hash.js';
import { leafHash, verifyInclusion } from './merkle.js';
import {
  type BundleChecks,
  type BundleVerdict,
  type CheckResult,
  CHECKPOINT_MISMATCH,
  checkpointMatches,
  type EpochProof,
  headerFieldsMatch,
  INCLUSION_MISMATCH,
  INTEGRITY_MISMATCH,
  type MerkleProof,
  OK,
  type Step,
  stepRecorder,
  type AnchorProof,
  type ProofBundle,
} from './proof-bundle.js';
import { parseCheckpoint, parseVerifierKey, verifyNote } from './signed-note.js';

export {
  BUNDLE_STEPS,
  type AnchorProof,
  type BundleChecks,
  type BundleVerdict,
  type CheckResult,
  type EpochProof,
  type MerkleProof,
  type ProofBundle,
} from './proof-bundle.js';

/** The RFC 9162 leaf of a trace: leafHash over the 32 bytes of its integrity hash. */
export function traceLeafHash(integrityHash: string): Buffer {
  return leafHash(Buffer.from(integrityHash.slice('sha256:'.length), 'hex'));
}

function headerMatches(b: ProofBundle): boolean {
  return headerFieldsMatch(b) && entryHash(b.header) === b.integrity_hash;
}

function decodeHash(b64: unknown): Buffer | null {
  if (typeof b64 !== 'string') return null;
  const buf = Buffer.from(b64, 'base64');
  return buf.length === 32 && buf.toString('base64') === b64 ? buf : null;
}

function decodeHexHash(hex: unknown): Buffer | null {
  return typeof hex === 'string' && /^0x[0-9a-f]{64}$/.test(hex) ? Buffer.from(hex.slice(2), 'hex') : null;
}

function decodePath(path: unknown): Buffer[] | null {
  if (!Array.isArray(path)) return null;
  const out = path.map(decodeHash);
  return out.every((p): p is Buffer => p !== null) ? out : null;
}

/** The checkpoint note's signature and statement (origin, size, root) against the key. */
function checkpointStep(bundle: ProofBundle, m: MerkleProof, vkey: string | undefined): Step {
  const fail = (detail: string): Step => ({ ok: false, reason: 'checkpoint_signature_invalid', detail });
  let key: ReturnType<typeof parseVerifierKey>;
  try {
    key = parseVerifierKey(vkey ?? m.vkey);
  } catch {
    return fail('the verifier key is malformed');
  }
  const body = verifyNote(m.checkpoint, key);
  if (!body.ok) return fail(`checkpoint note: ${body.reason}`);
  let cp: ReturnType<typeof parseCheckpoint>;
  try {
    cp = parseCheckpoint(body.body);
  } catch {
    return fail('the signed note is not a checkpoint');
  }
  if (!checkpointMatches(bundle, m, cp)) return fail(CHECKPOINT_MISMATCH);
  return OK;
}

function inclusionStep(bundle: ProofBundle, m: MerkleProof): Step {
  const path = decodePath(m.inclusion_path);
  const root = decodeHash(m.root);
  if (
    m.leaf_index !== bundle.sequence_num - 1
    || path === null
    || root === null
    || !verifyInclusion(m.leaf_index, m.tree_size, traceLeafHash(bundle.integrity_hash), path, root)
  ) {
    return {
      ok: false,
      reason: 'inclusion_proof_invalid',
      detail: INCLUSION_MISMATCH,
    };
  }
  return OK;
}

function epochStep(m: MerkleProof, e: EpochProof): Step {
  const fail = (detail: string): Step => ({ ok: false, reason: 'epoch_inclusion_invalid', detail });
  const body = noteBody(m.checkpoint);
  if (body === null || e.checkpoint_body !== body) return fail('epoch.checkpoint_body is not the body of the signed checkpoint');
  const path = decodePath(e.inclusion_path);
  const root = decodeHexHash(e.root);
  if (path === null || root === null || !verifyInclusion(e.leaf_index, e.leaf_count, epochLeafHash(body), path, root)) {
    return fail(`the epoch inclusion path does not lead from the checkpoint to the root of epoch ${String(e.epoch)}`);
  }
  return OK;
}

function calldataStep(e: EpochProof, a: AnchorProof): Step {
  const fail = (detail: string): Step => ({ ok: false, reason: 'anchor_calldata_mismatch', detail });
  const payload = decodeAnchorCalldata(a.calldata);
  if (payload === null) return fail('anchor.calldata is not GWA1 anchor calldata (tag, length or epoch 0)');
  if (!Number.isSafeInteger(e.epoch) || payload.epoch !== BigInt(e.epoch)) {
    return fail(`the calldata carries epoch ${payload.epoch}, the bundle epoch ${String(e.epoch)}`);
  }
  const root = decodeHexHash(e.root);
  if (root === null || !payload.root.equals(root)) return fail('the calldata carries another root than epoch.root');
  return OK;
}

/** Checks a bundle against a verifier key (the caller's pinned key, else the one the bundle names). */
export function checkBundle(bundle: ProofBundle, vkey?: string): BundleVerdict {
  const { checks, run } = stepRecorder();
  const fail = (check: keyof BundleChecks, reason: string, detail: string) => run(check, { ok: false, reason, detail })!;

  if (!headerMatches(bundle)) return fail('integrity_hash', 'integrity_hash_mismatch', INTEGRITY_MISMATCH);
  checks.integrity_hash = 'ok';

  const m = bundle.merkle;
  const e = bundle.epoch ?? null;
  const a = bundle.anchor ?? null;
  const awaiting: CheckResult = bundle.flare_status === 'PENDING' ? 'pending' : 'not_checked';
  if (m === null) {
    if (e !== null || a !== null)
      return fail('checkpoint_signature', 'checkpoint_signature_invalid', 'an anchor without the checkpoint it commits to');
    Object.assign(checks, { checkpoint_signature: 'pending', inclusion: 'pending', epoch_inclusion: awaiting, anchor_calldata: awaiting });
    return { checks, reason: null, detail: 'no checkpoint covers this trace yet' };
  }
  const failed = run('checkpoint_signature', checkpointStep(bundle, m, vkey)) ?? run('inclusion', inclusionStep(bundle, m));
  if (failed) return failed;

  if (e === null) {
    if (a !== null || bundle.flare_status === 'ANCHORED')
      return fail('epoch_inclusion', 'epoch_inclusion_invalid', 'the trace is said to be anchored but the bundle has no epoch');
    Object.assign(checks, { epoch_inclusion: awaiting, anchor_calldata: awaiting });
    return { checks, reason: null, detail: awaiting === 'pending' ? 'no anchored epoch covers this trace yet' : null };
  }
  const epochFailed = run('epoch_inclusion', epochStep(m, e));
  if (epochFailed) return epochFailed;
  if (a === null) return fail('anchor_calldata', 'anchor_calldata_mismatch', 'an epoch without the anchor that carries it');
  return run('anchor_calldata', calldataStep(e, a)) ?? { checks, reason: null, detail: null };
}
