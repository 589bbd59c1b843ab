// The bundle checks of proof-check.ts on Web Crypto (crypto.subtle SHA-256 and Ed25519), for the
// web console: a person checks a trace's proof in the browser, against the key they pinned, without
// trusting the server's verdict or installing anything. Parsing and path arithmetic are the CLI's
// own (note-text.ts, merkle-path.ts, proof-bundle.ts); only the hashing and the signature differ.
// The epoch and anchor steps are left to gatewayctl (`traces check-proof --rpc`): not_checked here.
import { canonicalJson } from './canonical-json.js';
import { inclusionSides } from './merkle-path.js';
import { assertEd25519Key, hexOf, keyIdInput, openNoteText, parseCheckpointText, splitVerifierKey } from './note-text.js';
import {
  type BundleVerdict,
  CHECKPOINT_MISMATCH,
  checkpointMatches,
  decodeHash32,
  headerFieldsMatch,
  INCLUSION_MISMATCH,
  INTEGRITY_MISMATCH,
  type MerkleProof,
  OK,
  type Step,
  stepRecorder,
  type ProofBundle,
} from './proof-bundle.js';

const utf8 = (text: string) => new TextEncoder().encode(text);

async function sha256(...parts: Uint8Array[]): Promise<Uint8Array> {
  const data = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  return new Uint8Array(await crypto.subtle.digest('SHA-256', data));
}

async function integrityOk(b: ProofBundle): Promise<boolean> {
  if (!headerFieldsMatch(b)) return false;
  try {
    return `sha256:${hexOf(await sha256(utf8(canonicalJson(b.header))))}` === b.integrity_hash;
  } catch {
    return false; // a header JSON cannot hold (canonicalJson refuses it)
  }
}

/** The C2SP note check of signed-note.ts's verifyNote: the body, or why not (same wording). */
async function verifyNoteWeb(note: string, vkey: string): Promise<{ ok: true; body: string } | { ok: false; detail: string }> {
  let key: ReturnType<typeof splitVerifierKey>;
  let id: Uint8Array;
  let publicKey: CryptoKey;
  try {
    key = splitVerifierKey(vkey);
    id = (await sha256(keyIdInput(key.name, key.encoded))).subarray(0, 4);
    if (hexOf(id) !== key.idHex.toLowerCase()) return { ok: false, detail: 'the verifier key is malformed' };
    assertEd25519Key(key.encoded);
    publicKey = await crypto.subtle.importKey('raw', key.encoded.slice(1), { name: 'Ed25519' }, false, ['verify']);
  } catch {
    return { ok: false, detail: 'the verifier key is malformed' };
  }
  const opened = openNoteText(note);
  if (!opened.ok) return { ok: false, detail: 'checkpoint note: malformed' };
  const mine = opened.signatures.filter((s) => s.name === key.name && hexOf(s.keyId) === hexOf(id));
  if (mine.length === 0) return { ok: false, detail: 'checkpoint note: no_signature' };
  for (const s of mine) {
    const good =
      s.signature.length === 64 && (await crypto.subtle.verify({ name: 'Ed25519' }, publicKey, s.signature.slice(), utf8(opened.body)));
    if (!good) return { ok: false, detail: 'checkpoint note: bad_signature' };
  }
  return { ok: true, body: opened.body };
}

async function checkpointStep(bundle: ProofBundle, m: MerkleProof, vkey: string): Promise<Step> {
  const fail = (detail: string): Step => ({ ok: false, reason: 'checkpoint_signature_invalid', detail });
  const note = await verifyNoteWeb(m.checkpoint, vkey);
  if (!note.ok) return fail(note.detail);
  let cp: ReturnType<typeof parseCheckpointText>;
  try {
    cp = parseCheckpointText(note.body);
  } catch {
    return fail('the signed note is not a checkpoint');
  }
  return checkpointMatches(bundle, m, cp) ? OK : fail(CHECKPOINT_MISMATCH);
}

async function inclusionStep(bundle: ProofBundle, m: MerkleProof): Promise<Step> {
  const fail: Step = { ok: false, reason: 'inclusion_proof_invalid', detail: INCLUSION_MISMATCH };
  const path = Array.isArray(m.inclusion_path) ? m.inclusion_path.map(decodeHash32) : null;
  const root = decodeHash32(m.root);
  const sides = path === null ? null : inclusionSides(m.leaf_index, m.tree_size, path.length);
  if (m.leaf_index !== bundle.sequence_num - 1 || path === null || root === null || sides === null) return fail;
  const leafData = Uint8Array.from(bundle.integrity_hash.slice('sha256:'.length).match(/../g) ?? [], (x) => Number.parseInt(x, 16));
  let r = await sha256(Uint8Array.of(0), leafData);
  for (const [i, p] of path.entries()) {
    if (p === null) return fail;
    r = sides[i] ? await sha256(Uint8Array.of(1), p, r) : await sha256(Uint8Array.of(1), r, p);
  }
  return hexOf(r) === hexOf(root) ? OK : fail;
}

/** Checks a bundle against a verifier key (the pinned one, else the one the bundle names). */
export async function checkBundleWeb(bundle: ProofBundle, vkey?: string): Promise<BundleVerdict> {
  const { checks, run } = stepRecorder();
  const failed = run(
    'integrity_hash',
    (await integrityOk(bundle)) ? OK : { ok: false, reason: 'integrity_hash_mismatch', detail: INTEGRITY_MISMATCH },
  );
  if (failed) return failed;
  const m = bundle.merkle;
  if (m === null) {
    if ((bundle.epoch ?? null) !== null || (bundle.anchor ?? null) !== null)
      return run('checkpoint_signature', {
        ok: false,
        reason: 'checkpoint_signature_invalid',
        detail: 'an anchor without the checkpoint it commits to',
      })!;
    const awaiting = bundle.flare_status === 'PENDING' ? 'pending' : 'not_checked';
    Object.assign(checks, { checkpoint_signature: 'pending', inclusion: 'pending', epoch_inclusion: awaiting, anchor_calldata: awaiting });
    return { checks, reason: null, detail: 'no checkpoint covers this trace yet' };
  }
  return (
    run('checkpoint_signature', await checkpointStep(bundle, m, vkey ?? m.vkey))
    ?? run('inclusion', await inclusionStep(bundle, m)) ?? { checks, reason: null, detail: null }
  );
}
