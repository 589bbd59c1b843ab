// POST /api/v1/verify-proof for anchored traces, end to end: a real anvil node, a daemon anchoring to
// it (GATEWAY_ANCHOR_*), checkpoints and epochs cut by the test (checkpointNow, anchor run-now).
// The bundle's proof goes to the ANCHORED checkpoint, then from it to the epoch root, then to the
// calldata of the transaction the node holds.
import t from 'tap';
import { SubtreeReader } from '../../../daemon/ledger/merkle-store.js';
import { ANCHOR_CALLDATA_LAYOUT, encodeAnchorCalldata } from '../../../shared/anchor-format.js';
import { inclusionProof } from '../../../shared/merkle.js';
import { checkBundle, traceLeafHash, type ProofBundle } from '../../../shared/proof-check.js';
import { startAnvil } from '../../helpers/anvil.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { addProject, anchoredGateway, runNow, seedTraces } from '../../anchor/setup.js';

const ALL_OK = {
  integrity_hash: 'ok',
  content_hash: 'ok',
  prev_link: 'ok',
  next_link: 'ok',
  checkpoint_signature: 'ok',
  inclusion: 'ok',
  epoch_inclusion: 'ok',
  anchor_calldata: 'ok',
  anchor_tx: 'not_checked',
};

async function leavesOf(gw: TestGateway, project: string): Promise<Buffer[]> {
  return (await gw.db`select integrity_hash from traces where project_id = ${project} order by sequence_num`).map((r) =>
    traceLeafHash(r.integrity_hash),
  );
}

const proofOf = async (gw: TestGateway, id: string) => (await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: id } })).body;

t.test('the stored tree proves inclusion against any earlier checkpoint size, as shared/merkle.ts does', async (t) => {
  const gw = await startTestGateway(t, { env: { GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400' } });
  for (const n of [300, 300]) {
    for (let i = 0; i < n; i += 50) {
      await Promise.all(
        Array.from({ length: 50 }, () =>
          gw.gateway.writer.append('default', { traceType: 'VERIFY', decision: 'PASSED', content: { display: 'x' } }),
        ),
      );
    }
    await gw.gateway.checkpointNow();
  }
  const leaves = await leavesOf(gw, 'default');
  t.equal(leaves.length, 600);
  const reader = new SubtreeReader(gw.gateway.sql, 'default');
  for (const size of [1, 2, 255, 256, 257, 300, 511, 512, 513, 600]) {
    for (const index of new Set([0, size - 1, Math.floor(size / 2), 255, 256].filter((i) => i < size))) {
      const stored = await reader.path(index, 0, size);
      t.same(
        stored.map((h) => h.toString('hex')),
        inclusionProof(index, leaves.slice(0, size)).map((h) => h.toString('hex')),
        `leaf ${index} of ${size}`,
      );
    }
  }
});

t.test('an anchored trace: proof to the anchored checkpoint, the epoch tree and the calldata on chain', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node);
  t.equal((await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } })).status, 200);
  await addProject(gw, 'p2', true);
  await addProject(gw, 'p3', false);
  const traces = await seedTraces(gw, 'default', 20);
  await seedTraces(gw, 'p2', 3);
  await seedTraces(gw, 'p3', 2);
  await gw.gateway.checkpointNow();
  const run = await runNow(gw);
  t.equal(run.status, 200, run.text);
  const epoch = run.body.epoch;
  t.match(epoch, { epoch: 1, state: 'ANCHORED', leaf_count: 2 });
  // The chain grows past the anchored checkpoint: the latest checkpoint is no longer the anchored one.
  traces.push(...(await seedTraces(gw, 'default', 5)));
  await gw.gateway.checkpointNow();
  const vkey = (await gw.api('GET', '/api/v1/ledger/checkpoint')).body.vkey;

  t.equal(traces[6]!.sequenceNum, 7);
  const proof = await proofOf(gw, traces[6]!.id);
  t.equal(proof.intact, true, proof.detail);
  t.equal(proof.reason, null);
  t.same(proof.checks, ALL_OK, 'every check ran and passed; anchor_tx needs a node (gatewayctl --rpc)');
  t.equal(proof.flare_status, 'ANCHORED');
  const listed = (await gw.api('GET', `/api/v1/traces?id=${traces[6]!.id}`)).body.traces[0];
  t.same([listed.flare_status, listed.flare_tx_hash], ['ANCHORED', epoch.tx_hash], 'the trace record says the same');
  t.match(proof.merkle, { leaf_index: 6, tree_size: 20 }, 'the proof goes to the anchored checkpoint (20), not the latest (25)');
  const leaves = await leavesOf(gw, 'default');
  t.same(
    proof.merkle.inclusion_path,
    inclusionProof(6, leaves.slice(0, 20)).map((h) => h.toString('base64')),
    'the RFC 9162 path in the tree of 20',
  );
  const [anchored] = await gw.db`select note from checkpoints where project_id = 'default' and tree_size = 20`;
  t.equal(proof.merkle.checkpoint, anchored!.note);
  t.match(proof.epoch, {
    epoch: 1,
    leaf_index: 0,
    leaf_count: 2,
    root: epoch.root,
    checkpoint_body: anchored!.note.slice(0, anchored!.note.indexOf('\n\n') + 1),
  });
  const tx = (await node.rpc('eth_getTransactionByHash', [epoch.tx_hash])) as { input: string };
  t.same(
    proof.anchor,
    {
      ledger: 'flare',
      chain_id: 114,
      state: 'ANCHORED',
      tx_hash: epoch.tx_hash,
      block_number: epoch.block_number,
      calldata_layout: ANCHOR_CALLDATA_LAYOUT,
      calldata: tx.input,
    },
    'the calldata is what the node holds',
  );
  t.equal(proof.anchor.calldata, encodeAnchorCalldata({ epoch: 1n, root: Buffer.from(epoch.root.slice(2), 'hex') }));
  t.same(
    checkBundle(proof as ProofBundle, vkey),
    {
      checks: { integrity_hash: 'ok', checkpoint_signature: 'ok', inclusion: 'ok', epoch_inclusion: 'ok', anchor_calldata: 'ok' },
      reason: null,
      detail: null,
    },
    'the same checks offline, against the pinned key',
  );

  // Newer than the anchored checkpoint: covered by the latest checkpoint, waiting for an epoch.
  const newer = await proofOf(gw, traces[22]!.id);
  t.equal(newer.intact, true, 'pending is not a failure');
  t.match(newer, { flare_status: 'PENDING', epoch: null, anchor: null, merkle: { tree_size: 25 } });
  t.equal((await gw.api('GET', `/api/v1/traces?id=${traces[22]!.id}`)).body.traces[0].flare_status, 'PENDING');
  t.match(newer.checks, { inclusion: 'ok', epoch_inclusion: 'pending', anchor_calldata: 'pending', anchor_tx: 'pending' });
  const [fresh] = await seedTraces(gw, 'default', 1);
  t.match((await proofOf(gw, fresh!.id)).checks, {
    checkpoint_signature: 'pending',
    inclusion: 'pending',
    epoch_inclusion: 'pending',
    anchor_tx: 'pending',
  });

  // The next epoch covers the newer traces; the older ones keep the epoch that first covered them.
  await gw.gateway.checkpointNow();
  const second = await runNow(gw);
  t.match(second.body.epoch, { epoch: 2, state: 'ANCHORED', leaf_count: 1 });
  t.match(await proofOf(gw, traces[22]!.id), {
    intact: true,
    checks: ALL_OK,
    merkle: { tree_size: 26 },
    epoch: { epoch: 2, leaf_index: 0, leaf_count: 1 },
  });
  t.match(await proofOf(gw, traces[6]!.id), { intact: true, merkle: { tree_size: 20 }, epoch: { epoch: 1 } });

  // Attestation turned off: what was anchored stays proven; what comes after is not_checked, not pending.
  t.equal((await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: false } })).status, 200);
  t.match(await proofOf(gw, traces[6]!.id), { intact: true, checks: ALL_OK, flare_status: 'ANCHORED' });
  const [late] = await seedTraces(gw, 'default', 1);
  await gw.gateway.checkpointNow();
  const off = await proofOf(gw, late!.id);
  t.match(off, { intact: true, flare_status: null, epoch: null, anchor: null });
  t.match(
    off.checks,
    { inclusion: 'ok', epoch_inclusion: 'not_checked', anchor_calldata: 'not_checked', anchor_tx: 'not_checked' },
    'attestation off: nothing to anchor',
  );
});

t.test('an epoch changed in the database behind the ledger: the bundle still goes out and epoch_inclusion fails', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node);
  await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
  await addProject(gw, 'p2', true);
  const [tr] = await seedTraces(gw, 'default', 4);
  await seedTraces(gw, 'p2', 2);
  await gw.gateway.checkpointNow();
  t.equal((await runNow(gw)).body.epoch.state, 'ANCHORED');
  t.equal((await proofOf(gw, tr!.id)).intact, true);

  // As the database owner: another project's anchored checkpoint note rewritten (the trace's own proof is untouched).
  await gw.db.begin(async (tx) => {
    await tx`alter table checkpoints disable trigger checkpoints_append_only`;
    await tx`update checkpoints set note = replace(note, E'\n2\n', E'\n3\n') where project_id = 'p2'`;
    await tx`alter table checkpoints enable trigger checkpoints_append_only`;
  });
  const broken = await proofOf(gw, tr!.id);
  t.equal(broken.intact, false);
  t.equal(broken.reason, 'epoch_inclusion_invalid');
  t.match(broken.detail, /no longer hash to the root that was anchored/);
  t.match(broken.checks, { checkpoint_signature: 'ok', inclusion: 'ok', epoch_inclusion: 'failed', anchor_calldata: 'not_checked' });
  t.equal(checkBundle(broken as ProofBundle).reason, 'epoch_inclusion_invalid', 'the offline check agrees');
});
