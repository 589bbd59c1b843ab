// The web console's proof check (shared/proof-check-web.ts, Web Crypto) against gatewayctl's
// (shared/proof-check.ts, node:crypto): on a good bundle, a pending one and each kind of broken
// one, both give the same step results, reason and detail. Node's globalThis.crypto.subtle is the
// Web Crypto API the browser has (SHA-256 and Ed25519).
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import t from 'tap';
import { contentHash, entryHash, GENESIS_HASH } from '../../shared/ledger-hash.js';
import { inclusionProof, rootFromLeaves } from '../../shared/merkle.js';
import { checkBundle, type ProofBundle, traceLeafHash } from '../../shared/proof-check.js';
import { checkBundleWeb } from '../../shared/proof-check-web.js';
import { formatCheckpoint, signNote, verifierKey } from '../../shared/signed-note.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const NAME = 'governance-gateway.local';
const VKEY = verifierKey({ name: NAME, publicKey });
const OTHER_VKEY = verifierKey({ name: NAME, publicKey: generateKeyPairSync('ed25519').publicKey });
const SIZE = 11;

const headers: Record<string, unknown>[] = [];
for (let seq = 1, prev = GENESIS_HASH; seq <= SIZE + 2; seq++) {
  const header = {
    id: randomUUID(),
    project_id: 'default',
    stream: 'traces',
    sequence_num: seq,
    prev_hash: prev,
    content_hash: contentHash(randomBytes(16), { display: `prompt ${seq}` }),
    decision: 'PASSED',
    reason: null,
    created_at: new Date(Date.UTC(2026, 10, 21, 10, 0, seq)).toISOString(),
  };
  headers.push(header);
  prev = entryHash(header);
}
const leaves = headers.slice(0, SIZE).map((h) => traceLeafHash(entryHash(h)));
const root = rootFromLeaves(leaves);
const note = signNote(formatCheckpoint({ origin: `gateway.test/projects/default`, size: SIZE, root }), { name: NAME, privateKey }).note;

function bundleFor(seq: number): ProofBundle {
  const h = headers[seq - 1]!;
  return {
    trace_id: String(h.id),
    project_id: 'default',
    sequence_num: seq,
    integrity_hash: entryHash(h),
    prev_hash: String(h.prev_hash),
    content_hash: String(h.content_hash),
    header: h,
    merkle:
      seq > SIZE
        ? null
        : {
            algorithm: 'rfc9162-sha256',
            leaf_index: seq - 1,
            tree_size: SIZE,
            inclusion_path: inclusionProof(seq - 1, leaves).map((p) => p.toString('base64')),
            root: root.toString('base64'),
            checkpoint: note,
            checkpoint_created_at: '2026-11-21T10:00:20.000Z',
            vkey: VKEY,
          },
    flare_status: null,
    epoch: null,
    anchor: null,
  };
}

const flip = (b64: string) => {
  const b = Buffer.from(b64, 'base64');
  b[0] ^= 1;
  return b.toString('base64');
};
// biome-ignore lint/suspicious/noExplicitAny: each edit breaks a different part of the bundle's JSON
type Edit = (b: any) => void;

const cases: [string, number, Edit, string | null][] = [
  ['a good bundle', 4, () => undefined, null],
  ['the last leaf of the tree', SIZE, () => undefined, null],
  ['a rewritten field (tamper)', 4, (b) => (b.header.reason = 'rewritten'), 'integrity_hash_mismatch'],
  [
    'a rewritten field, rehashed: only the proof can tell',
    4,
    (b) => {
      b.header.decision = 'BLOCKED';
      b.integrity_hash = entryHash(b.header);
    },
    'inclusion_proof_invalid',
  ],
  [
    'a flipped signature byte',
    4,
    (b) =>
      (b.merkle.checkpoint = b.merkle.checkpoint.replace(
        / (\S)(\S+)\n$/,
        (_: string, c: string, r: string) => ` ${c === 'A' ? 'B' : 'A'}${r}\n`,
      )),
    'checkpoint_signature_invalid',
  ],
  ['another root than the signed one', 4, (b) => (b.merkle.root = flip(b.merkle.root)), 'checkpoint_signature_invalid'],
  ['another tree size', 4, (b) => (b.merkle.tree_size = SIZE + 1), 'checkpoint_signature_invalid'],
  ['a flipped path hash', 4, (b) => (b.merkle.inclusion_path[0] = flip(b.merkle.inclusion_path[0])), 'inclusion_proof_invalid'],
  ['a path one short', 4, (b) => b.merkle.inclusion_path.pop(), 'inclusion_proof_invalid'],
  ["another trace's index", 4, (b) => (b.merkle.leaf_index = 5), 'inclusion_proof_invalid'],
  [
    'a non-canonical base64 hash',
    4,
    (b) => (b.merkle.inclusion_path[0] = `${b.merkle.inclusion_path[0].slice(0, -2)}B=`),
    'inclusion_proof_invalid',
  ],
  ['pending: no checkpoint yet', SIZE + 1, () => undefined, null],
];

t.test('the console and gatewayctl agree on good, pending and broken bundles', async (t) => {
  for (const [name, seq, edit, reason] of cases) {
    const b = structuredClone(bundleFor(seq));
    edit(b);
    const cli = checkBundle(b, VKEY);
    const web = await checkBundleWeb(b, VKEY);
    t.equal(cli.reason, reason, `${name}: gatewayctl says ${String(reason)}`);
    t.same(web, cli, `${name}: the console's check says the same, step by step`);
  }
  const pending = await checkBundleWeb(bundleFor(SIZE + 1), VKEY);
  t.match(pending.checks, { integrity_hash: 'ok', checkpoint_signature: 'pending', inclusion: 'pending' }, 'pending, not failed');
});

t.test('the pinned key decides: a wrong or malformed key fails the signature step in both', async (t) => {
  const b = bundleFor(4);
  for (const [name, vkey, detail] of [
    ['another key', OTHER_VKEY, 'checkpoint note: no_signature'],
    ['a key with a wrong id', VKEY.replace(/\+([0-9a-f])/, (_, c: string) => `+${c === '0' ? '1' : '0'}`), 'the verifier key is malformed'],
    ['not a key', 'hello', 'the verifier key is malformed'],
  ] as const) {
    const cli = checkBundle(b, vkey);
    t.match(cli, { reason: 'checkpoint_signature_invalid', detail }, `${name}: gatewayctl`);
    t.same(await checkBundleWeb(b, vkey), cli, `${name}: the console agrees`);
  }
  t.equal((await checkBundleWeb(b)).reason, null, "without a pinned key, the bundle's own key");
});
