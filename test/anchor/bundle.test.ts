// The anchored proof bundle built in memory: a project's trace chain, signed checkpoints of five
// projects, one epoch tree over their bodies and its GWA1 calldata, put together by the daemon's own
// anchorSections. Every piece is then tampered in turn and the offline checker must name the step.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import t from 'tap';
import { anchorSections, type EpochLeaf, type StoredEpoch } from '../../daemon/anchor/bundle.js';
import {
  ANCHOR_CALLDATA_BYTES,
  compareProjectIds,
  decodeAnchorCalldata,
  encodeAnchorCalldata,
  epochLeafHash,
  noteBody,
} from '../../shared/anchor-format.js';
import { contentHash, entryHash, GENESIS_HASH } from '../../shared/ledger-hash.js';
import { inclusionProof, rootFromLeaves } from '../../shared/merkle.js';
import { checkBundle, traceLeafHash, type ProofBundle } from '../../shared/proof-check.js';
import { formatCheckpoint, signNote, verifierKey } from '../../shared/signed-note.js';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const signer = { name: 'governance-gateway.local', privateKey };
const VKEY = verifierKey({ name: signer.name, publicKey });
const ORIGIN = 'gateway.test';

/** A chain of n traces of one project, hashed as the daemon hashes them. */
function chain(projectId: string, n: number) {
  const out: { header: Record<string, unknown>; integrity: string }[] = [];
  let prev = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const header = {
      id: randomUUID(),
      project_id: projectId,
      stream: 'traces',
      sequence_num: seq,
      prev_hash: prev,
      content_hash: contentHash(randomBytes(16), { display: `prompt ${seq}` }),
      decision: 'PASSED',
      reason: null,
      created_at: new Date(Date.UTC(2026, 10, 21, 10, 0, seq)).toISOString(),
    };
    const integrity = entryHash(header);
    out.push({ header, integrity });
    prev = integrity;
  }
  return out;
}

const checkpointNote = (projectId: string, size: number, root: Buffer) =>
  signNote(formatCheckpoint({ origin: `${ORIGIN}/projects/${projectId}`, size, root }), signer).note;

// Project "p2" has 13 traces; the anchored checkpoint covers 11 (the last two came after it).
const traces = chain('p2', 13);
const ANCHORED_SIZE = 11;
const leaves = traces.slice(0, ANCHORED_SIZE).map((tr) => traceLeafHash(tr.integrity));
const p2Note = checkpointNote('p2', ANCHORED_SIZE, rootFromLeaves(leaves));

// The epoch: five projects' checkpoints in project-id byte order ("p10" sorts before "p2").
const notes = new Map([
  ['p3', checkpointNote('p3', 4, randomBytes(32))],
  ['p0', checkpointNote('p0', 90, randomBytes(32))],
  ['p2', p2Note],
  ['p10', checkpointNote('p10', 7, randomBytes(32))],
  ['p1', checkpointNote('p1', 1, randomBytes(32))],
]);
const order = [...notes.keys()].sort(compareProjectIds);
const epochLeaves: EpochLeaf[] = order.map((p, i) => ({ leafIndex: i, note: notes.get(p)! }));
const P2_LEAF = order.indexOf('p2');
const stored: StoredEpoch = {
  epoch: 42,
  root: rootFromLeaves(epochLeaves.map((l) => epochLeafHash(noteBody(l.note)!))),
  leafCount: epochLeaves.length,
  chainId: 114,
  state: 'ANCHORED',
  txHash: `0x${'ab'.repeat(32)}`,
  blockNumber: 7,
};

function bundleFor(seq: number, sections = anchorSections(stored, epochLeaves, P2_LEAF)): ProofBundle {
  const tr = traces[seq - 1]!;
  const h = tr.header;
  return {
    trace_id: String(h.id),
    project_id: 'p2',
    sequence_num: seq,
    integrity_hash: tr.integrity,
    prev_hash: String(h.prev_hash),
    content_hash: String(h.content_hash),
    header: h,
    merkle:
      seq > ANCHORED_SIZE
        ? null
        : {
            algorithm: 'rfc9162-sha256',
            leaf_index: seq - 1,
            tree_size: ANCHORED_SIZE,
            inclusion_path: inclusionProof(seq - 1, leaves).map((p) => p.toString('base64')),
            root: rootFromLeaves(leaves).toString('base64'),
            checkpoint: p2Note,
            checkpoint_created_at: '2026-11-21T10:00:20.000Z',
            vkey: VKEY,
          },
    flare_status: 'ANCHORED',
    epoch: sections.epoch,
    anchor: sections.anchor,
  };
}

const flipB64 = (b64: string) => {
  const b = Buffer.from(b64, 'base64');
  b[0] ^= 1;
  return b.toString('base64');
};
const flipChar = (text: string, at: number) => `${text.slice(0, at)}${text[at] === 'A' ? 'B' : 'A'}${text.slice(at + 1)}`;
const flipHex = (hex: string, at = 2) => `${hex.slice(0, at)}${hex[at] === '0' ? '1' : '0'}${hex.slice(at + 1)}`;
// biome-ignore lint/suspicious/noExplicitAny: each edit tampers a different part of the bundle's JSON
type Edit = (b: any) => any;

t.test('anchorSections: the epoch and anchor sections the daemon sends', async (t) => {
  t.equal(P2_LEAF, 3, '"p10" sorts before "p2"');
  const s = anchorSections(stored, epochLeaves, P2_LEAF);
  t.equal(s.rootMatches, true);
  t.same(s.epoch, {
    epoch: 42,
    leaf_index: P2_LEAF,
    leaf_count: 5,
    root: `0x${stored.root.toString('hex')}`,
    checkpoint_body: noteBody(p2Note),
    inclusion_path: inclusionProof(
      P2_LEAF,
      epochLeaves.map((l) => epochLeafHash(noteBody(l.note)!)),
    ).map((p) => p.toString('base64')),
  });
  t.same(s.anchor, {
    ledger: 'flare',
    chain_id: 114,
    state: 'ANCHORED',
    tx_hash: stored.txHash,
    block_number: 7,
    calldata_layout: 'GWA1 | u64be epoch | root32',
    calldata: encodeAnchorCalldata({ epoch: 42n, root: stored.root }),
  });
  t.equal(anchorSections({ ...stored, chainId: 14 }, epochLeaves, P2_LEAF).anchor.ledger, 'flare', 'Flare mainnet');
  t.equal(anchorSections({ ...stored, chainId: 31337 }, epochLeaves, P2_LEAF).anchor.ledger, 'evm', 'any other chain');
  t.same(
    anchorSections(stored, [...epochLeaves].reverse(), P2_LEAF).epoch,
    s.epoch,
    'leaves are taken in leaf_index order whatever the row order',
  );
});

t.test('an untampered anchored bundle is intact at every step, for every trace the checkpoint covers', async (t) => {
  for (let seq = 1; seq <= ANCHORED_SIZE; seq++) {
    const v = checkBundle(bundleFor(seq), VKEY);
    t.equal(v.reason, null, `trace ${seq}: ${v.detail}`);
    t.same(v.checks, { integrity_hash: 'ok', checkpoint_signature: 'ok', inclusion: 'ok', epoch_inclusion: 'ok', anchor_calldata: 'ok' });
  }
});

t.test('each piece tampered in turn fails at its own step, with its own reason', async (t) => {
  const otherNote = checkpointNote('p2', ANCHORED_SIZE + 1, randomBytes(32));
  const cases: [string, Edit, string, string][] = [
    ['a header field', (b) => ({ ...b, header: { ...b.header, decision: 'BLOCKED' } }), 'integrity_hash', 'integrity_hash_mismatch'],
    [
      'the content hash',
      (b) => ({ ...b, content_hash: `sha256:${'1'.repeat(64)}`, header: { ...b.header, content_hash: `sha256:${'1'.repeat(64)}` } }),
      'integrity_hash',
      'integrity_hash_mismatch',
    ],
    [
      'the prev link',
      (b) => ({ ...b, prev_hash: GENESIS_HASH, header: { ...b.header, prev_hash: GENESIS_HASH } }),
      'integrity_hash',
      'integrity_hash_mismatch',
    ],
    [
      'the checkpoint signature',
      (b) => ({ ...b, merkle: { ...b.merkle, checkpoint: flipChar(b.merkle.checkpoint, b.merkle.checkpoint.length - 20) } }),
      'checkpoint_signature',
      'checkpoint_signature_invalid',
    ],
    [
      'the checkpoint size in the note',
      (b) => ({
        ...b,
        merkle: { ...b.merkle, checkpoint: b.merkle.checkpoint.replace(`\n${ANCHORED_SIZE}\n`, `\n${ANCHORED_SIZE + 1}\n`) },
      }),
      'checkpoint_signature',
      'checkpoint_signature_invalid',
    ],
    [
      'the tree size beside the note',
      (b) => ({ ...b, merkle: { ...b.merkle, tree_size: ANCHORED_SIZE + 1 } }),
      'checkpoint_signature',
      'checkpoint_signature_invalid',
    ],
    [
      'the root in the note',
      (b) => ({ ...b, merkle: { ...b.merkle, checkpoint: b.merkle.checkpoint.replace(b.merkle.root, flipB64(b.merkle.root)) } }),
      'checkpoint_signature',
      'checkpoint_signature_invalid',
    ],
    [
      'another signed checkpoint of the project',
      (b) => ({ ...b, merkle: { ...b.merkle, checkpoint: otherNote } }),
      'checkpoint_signature',
      'checkpoint_signature_invalid',
    ],
    [
      'the inclusion path',
      (b) => ({
        ...b,
        merkle: { ...b.merkle, inclusion_path: [flipB64(b.merkle.inclusion_path[0]), ...b.merkle.inclusion_path.slice(1)] },
      }),
      'inclusion',
      'inclusion_proof_invalid',
    ],
    [
      'the epoch leaf_index',
      (b) => ({ ...b, epoch: { ...b.epoch, leaf_index: (b.epoch.leaf_index + 1) % 5 } }),
      'epoch_inclusion',
      'epoch_inclusion_invalid',
    ],
    // (Not every count changes the path: leaf 3 of 5 and of 8 hash alike. The root commits to the leaves, not to a count.)
    ['the epoch leaf_count', (b) => ({ ...b, epoch: { ...b.epoch, leaf_count: 4 } }), 'epoch_inclusion', 'epoch_inclusion_invalid'],
    [
      'the epoch inclusion path',
      (b) => ({
        ...b,
        epoch: { ...b.epoch, inclusion_path: [...b.epoch.inclusion_path.slice(0, -1), flipB64(b.epoch.inclusion_path.at(-1))] },
      }),
      'epoch_inclusion',
      'epoch_inclusion_invalid',
    ],
    ['the epoch root', (b) => ({ ...b, epoch: { ...b.epoch, root: flipHex(b.epoch.root) } }), 'epoch_inclusion', 'epoch_inclusion_invalid'],
    [
      'the epoch root in capitals',
      (b) => ({ ...b, epoch: { ...b.epoch, root: b.epoch.root.toUpperCase().replace('0X', '0x') } }),
      'epoch_inclusion',
      'epoch_inclusion_invalid',
    ],
    [
      'the checkpoint body',
      (b) => ({ ...b, epoch: { ...b.epoch, checkpoint_body: noteBody(otherNote) } }),
      'epoch_inclusion',
      'epoch_inclusion_invalid',
    ],
    [
      'the epoch left out of an anchored bundle',
      (b) => ({ ...b, epoch: null, anchor: null }),
      'epoch_inclusion',
      'epoch_inclusion_invalid',
    ],
    ['the anchor left out', (b) => ({ ...b, anchor: null }), 'anchor_calldata', 'anchor_calldata_mismatch'],
    [
      'the epoch number in the calldata',
      (b) => ({ ...b, anchor: { ...b.anchor, calldata: encodeAnchorCalldata({ epoch: 43n, root: stored.root }) } }),
      'anchor_calldata',
      'anchor_calldata_mismatch',
    ],
    [
      'the epoch number beside the calldata',
      (b) => ({ ...b, epoch: { ...b.epoch, epoch: 41 } }),
      'anchor_calldata',
      'anchor_calldata_mismatch',
    ],
    [
      'the root in the calldata',
      (b) => ({ ...b, anchor: { ...b.anchor, calldata: flipHex(b.anchor.calldata, 2 + 24) } }),
      'anchor_calldata',
      'anchor_calldata_mismatch',
    ],
    [
      'the tag in the calldata',
      (b) => ({ ...b, anchor: { ...b.anchor, calldata: `0x${Buffer.from('GWA2').toString('hex')}${b.anchor.calldata.slice(10)}` } }),
      'anchor_calldata',
      'anchor_calldata_mismatch',
    ],
    [
      'the calldata cut short',
      (b) => ({ ...b, anchor: { ...b.anchor, calldata: b.anchor.calldata.slice(0, -2) } }),
      'anchor_calldata',
      'anchor_calldata_mismatch',
    ],
  ];
  const steps = ['integrity_hash', 'checkpoint_signature', 'inclusion', 'epoch_inclusion', 'anchor_calldata'];
  for (const [what, edit, step, reason] of cases) {
    const v = checkBundle(edit(bundleFor(5)), VKEY);
    t.equal(v.reason, reason, `${what}: ${reason}`);
    t.equal(v.checks[step as keyof typeof v.checks], 'failed', `${what}: ${step} failed`);
    const at = steps.indexOf(step);
    t.ok(
      steps.slice(0, at).every((s) => v.checks[s as keyof typeof v.checks] === 'ok'),
      `${what}: the steps before ${step} passed`,
    );
    t.ok(
      steps.slice(at + 1).every((s) => v.checks[s as keyof typeof v.checks] === 'not_checked'),
      `${what}: the steps after ${step} were not run`,
    );
  }
  t.equal(checkBundle(bundleFor(5)).reason, null, 'the key named in the bundle works too');
  const other = verifierKey({ name: signer.name, publicKey: generateKeyPairSync('ed25519').publicKey });
  t.equal(checkBundle(bundleFor(5), other).reason, 'checkpoint_signature_invalid', 'a pinned key of another signer');
});

t.test('a whole forged epoch (tree, root and calldata made to agree) passes offline: only the chain can tell', async (t) => {
  const forgedLeaves = [epochLeaves[P2_LEAF]!, { leafIndex: 1, note: checkpointNote('zz', 1, randomBytes(32)) }].map((l, i) => ({
    ...l,
    leafIndex: i,
  }));
  const forgedRoot = rootFromLeaves(forgedLeaves.map((l) => epochLeafHash(noteBody(l.note)!)));
  const forged = anchorSections({ ...stored, root: forgedRoot, leafCount: 2 }, forgedLeaves, 0);
  t.equal(checkBundle(bundleFor(5, forged), VKEY).reason, null, 'self-consistent: this is what anchor_tx (--rpc) is for');
  t.not(forged.anchor.calldata, bundleFor(5).anchor!.calldata, 'its calldata is not what the transaction carries');
});

t.test('server-side corruption: stored leaves that no longer hash to the anchored root fail epoch_inclusion', async (t) => {
  const changed = epochLeaves.map((l, i) => (i === 0 ? { ...l, note: checkpointNote(order[0]!, 91, randomBytes(32)) } : l));
  const s = anchorSections(stored, changed, P2_LEAF);
  t.equal(s.rootMatches, false);
  t.equal(checkBundle(bundleFor(5, s), VKEY).reason, 'epoch_inclusion_invalid');
  const gap = anchorSections(
    stored,
    epochLeaves.filter((l) => l.leafIndex !== 0),
    P2_LEAF,
  );
  t.equal(gap.rootMatches, false, 'a missing leaf');
  t.equal(checkBundle(bundleFor(5, gap), VKEY).reason, 'epoch_inclusion_invalid');
  const lost = anchorSections(
    stored,
    epochLeaves.filter((l) => l.leafIndex !== P2_LEAF),
    P2_LEAF,
  );
  t.equal(checkBundle(bundleFor(5, lost), VKEY).reason, 'epoch_inclusion_invalid', "the trace's own leaf missing");
});

t.test('not anchored yet: pending while anchoring is on, not_checked when off; never a failure', async (t) => {
  const unanchored = (b: ProofBundle, flare: 'PENDING' | null): ProofBundle => ({ ...b, epoch: null, anchor: null, flare_status: flare });
  const on = checkBundle(unanchored(bundleFor(ANCHORED_SIZE), 'PENDING'), VKEY);
  t.same(on, {
    checks: { integrity_hash: 'ok', checkpoint_signature: 'ok', inclusion: 'ok', epoch_inclusion: 'pending', anchor_calldata: 'pending' },
    reason: null,
    detail: 'no anchored epoch covers this trace yet',
  });
  const off = checkBundle(unanchored(bundleFor(3), null), VKEY);
  t.same(off.checks, {
    integrity_hash: 'ok',
    checkpoint_signature: 'ok',
    inclusion: 'ok',
    epoch_inclusion: 'not_checked',
    anchor_calldata: 'not_checked',
  });
  t.equal(off.reason, null);
  const legacy = { ...bundleFor(3) } as Record<string, unknown>;
  delete legacy.epoch;
  delete legacy.anchor;
  delete legacy.flare_status;
  t.equal(checkBundle(legacy as unknown as ProofBundle, VKEY).checks.epoch_inclusion, 'not_checked', 'a bundle from before anchoring');
  const newest = { ...unanchored(bundleFor(13), 'PENDING'), merkle: null };
  t.same(checkBundle(newest, VKEY).checks, {
    integrity_hash: 'ok',
    checkpoint_signature: 'pending',
    inclusion: 'pending',
    epoch_inclusion: 'pending',
    anchor_calldata: 'pending',
  });
  t.equal(checkBundle({ ...bundleFor(13), merkle: null }, VKEY).reason, 'checkpoint_signature_invalid', 'an anchor without a checkpoint');
});

t.test('anchor-format: GWA1 calldata round trips and rejects what is not one', async (t) => {
  for (const epoch of [1n, 42n, 2n ** 32n + 5n, 2n ** 64n - 1n]) {
    const root = randomBytes(32);
    const hex = encodeAnchorCalldata({ epoch, root });
    t.equal(hex.length, 2 + 2 * ANCHOR_CALLDATA_BYTES);
    t.match(hex, /^0x47574131[0-9a-f]{80}$/, '"GWA1" then 40 bytes, lower-case hex');
    const back = decodeAnchorCalldata(hex)!;
    t.equal(back.epoch, epoch);
    t.ok(back.root.equals(root));
    t.same(decodeAnchorCalldata(hex.toUpperCase().replace('0X', '0x'))?.epoch, epoch, 'hex case does not matter');
  }
  t.equal(encodeAnchorCalldata({ epoch: 1n, root: Buffer.alloc(32) }), `0x47574131${'00'.repeat(7)}01${'00'.repeat(32)}`, 'u64 big-endian');
  const good = encodeAnchorCalldata({ epoch: 9n, root: randomBytes(32) });
  const rejects: [string, string][] = [
    ['wrong tag', `0x${Buffer.from('GWA2').toString('hex')}${good.slice(10)}`],
    ['one byte short', good.slice(0, -2)],
    ['one byte long', `${good}00`],
    ['epoch 0', `0x47574131${'00'.repeat(8)}${good.slice(26)}`],
    ['no 0x', good.slice(2)],
    ['not hex', `${good.slice(0, -2)}zz`],
    ['empty', '0x'],
  ];
  for (const [what, hex] of rejects) t.equal(decodeAnchorCalldata(hex), null, what);
  t.equal(decodeAnchorCalldata(42 as unknown as string), null, 'not a string');
  t.throws(() => encodeAnchorCalldata({ epoch: 0n, root: Buffer.alloc(32) }), RangeError);
  t.throws(() => encodeAnchorCalldata({ epoch: 2n ** 64n, root: Buffer.alloc(32) }), RangeError);
  t.throws(() => encodeAnchorCalldata({ epoch: 1n, root: Buffer.alloc(31) }), RangeError);
  t.equal(
    noteBody(p2Note),
    formatCheckpoint({ origin: `${ORIGIN}/projects/p2`, size: ANCHORED_SIZE, root: rootFromLeaves(leaves) }),
    "a note's body is the signed text",
  );
  t.equal(noteBody('no blank line\n'), null);
  t.same(['p2', 'a', 'Z', 'p10', 'é', 'z'].sort(compareProjectIds), ['Z', 'a', 'p10', 'p2', 'z', 'é'], 'byte order, not locale order');
});
