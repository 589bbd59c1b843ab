import t from 'tap';
import fs from 'node:fs/promises';
import { rootFromLeaves } from '../../../shared/merkle.js';
import { checkBundle, traceLeafHash, type ProofBundle } from '../../../shared/proof-check.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { tamper } from '../../helpers/tamper.js';

async function seed(gw: TestGateway, n: number, project = 'default') {
  const out = [];
  // Concurrent appends exercise group commit; the chain order is whatever the writer chose.
  for (let i = 0; i < n; i += 50) {
    out.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, (_, j) =>
          gw.gateway.writer.append(project, { traceType: 'VERIFY', decision: 'PASSED', content: { display: `prompt ${i + j}` } }),
        ),
      )),
    );
  }
  return out.sort((a, b) => a.sequenceNum - b.sequenceNum);
}

const counts = async (gw: TestGateway) =>
  (
    await gw.db`
  select (select count(*) from traces)::int as traces, (select count(*) from admin_log)::int as admin,
         (select count(*) from checkpoints)::int as checkpoints`
  )[0];

t.test('verify-proof: intact traces carry an RFC 9162 inclusion proof to a signed checkpoint that checks offline', async (t) => {
  // Checkpoints only when the test cuts one: the 10 s timer would otherwise take the late trace first.
  const gw = await startTestGateway(t, { env: { GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400' } });
  const traces = await seed(gw, 300); // more than one block of 256 leaves: stored level-8 nodes are used
  const [cp] = await gw.gateway.checkpointNow();
  t.equal(cp!.tree_size, 300);
  const leaves = (await gw.db`select integrity_hash from traces where project_id = 'default' order by sequence_num`).map((r) =>
    traceLeafHash(r.integrity_hash),
  );
  t.ok(cp!.root.equals(rootFromLeaves(leaves)), 'the incremental tree has the RFC 9162 root of all leaves');
  t.ok((await gw.db`select count(*)::int as n from merkle_nodes where level = 8`)[0]!.n === 1, 'the completed 256-leaf subtree is stored');

  const published = (await gw.api('GET', '/api/v1/ledger/checkpoint')).body;
  t.equal(published.checkpoint.tree_size, 300);
  t.match(published.vkey, /^governance-gateway\.local\+[0-9a-f]{8}\+/);

  for (const pick of [traces[0]!, traces[127]!, traces[255]!, traces[256]!, traces[299]!]) {
    const res = await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: pick.id } });
    t.equal(res.status, 200);
    t.equal(res.body.intact, true, `trace ${pick.sequenceNum} intact`);
    t.equal(res.body.reason, null);
    t.same(res.body.checks, {
      integrity_hash: 'ok',
      content_hash: 'ok',
      prev_link: 'ok',
      next_link: pick.sequenceNum === 300 ? 'not_checked' : 'ok',
      checkpoint_signature: 'ok',
      inclusion: 'ok',
      epoch_inclusion: 'not_checked',
      anchor_calldata: 'not_checked',
      anchor_tx: 'not_checked', // anchoring is off for this project
    });
    t.match(res.body, { flare_status: null, epoch: null, anchor: null });
    t.equal(res.body.merkle.leaf_index, pick.sequenceNum - 1);
    const offline = checkBundle(res.body as ProofBundle, published.vkey);
    t.equal(offline.reason, null, 'the bundle checks offline against the pinned key');
    // A proof for one trace does not prove another.
    const swapped = { ...res.body, merkle: { ...res.body.merkle, leaf_index: pick.sequenceNum % 300 } };
    t.equal(checkBundle(swapped as ProofBundle, published.vkey).reason, 'inclusion_proof_invalid');
  }

  const fresh = await gw.gateway.writer.append('default', { traceType: 'VERIFY', decision: 'PASSED', content: { display: 'late' } });
  const pending = await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: fresh.id } });
  t.equal(pending.body.intact, true);
  t.equal(pending.body.merkle, null);
  t.equal(pending.body.checks.inclusion, 'pending', 'a trace newer than the latest checkpoint is pending, not failed');
  const [next] = await gw.gateway.checkpointNow();
  t.equal(next!.tree_size, 301, 'the next pass extends the tree by the new entries');
  t.equal((await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: fresh.id } })).body.checks.inclusion, 'ok');
  t.same(await gw.gateway.checkpointNow(), [], 'nothing grew, nothing signed');
});

t.test("verify-proof: bad input is refused and writes nothing; other projects' traces are not found", async (t) => {
  const gw = await startTestGateway(t);
  const [tr] = await seed(gw, 3);
  const before = await counts(gw);
  for (const body of [{}, { trace_id: 'nope' }, { trace_id: tr!.id, extra: 1 }, 'not json']) {
    const res = await gw.api('POST', '/api/v1/verify-proof', { body });
    t.equal(res.status, 400);
    t.equal(res.body.error.code, 'validation_error');
  }
  const unknown = await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: '00000000-0000-4000-8000-000000000000' } });
  t.equal(unknown.status, 404);
  t.equal(unknown.body.error.code, 'not_found');
  t.equal((await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: tr!.id }, token: null })).status, 401);
  t.same(await counts(gw), before, 'no refusal wrote anything');
});

t.test('tampering as the database owner: verify-proof and verify-chain both name the row', async (t) => {
  const gw = await startTestGateway(t);
  const traces = await seed(gw, 20);
  await gw.gateway.checkpointNow();
  const proof = async (seq: number) => (await gw.api('POST', '/api/v1/verify-proof', { body: { trace_id: traces[seq - 1]!.id } })).body;

  // 1. A field rewritten, hash left alone: the row no longer hashes to itself.
  await tamper(gw.db, 7, false);
  const p7 = await proof(7);
  t.equal(p7.intact, false);
  t.equal(p7.reason, 'integrity_hash_mismatch');
  t.equal(p7.checks.integrity_hash, 'failed');
  const chain = (await gw.api('GET', '/api/v1/ledger/verify-chain')).body;
  t.equal(chain.intact, false);
  t.equal(chain.first_broken.sequence_num, 7, 'verify-chain names the same row');
  t.equal(chain.first_broken.id, traces[6]!.id);
  t.equal((await proof(6)).intact, true, 'its neighbours are intact on their own');

  // 2. The forger also recomputes the row's hash: the links to the neighbour and the signed tree break.
  await tamper(gw.db, 7, true);
  const again = await proof(7);
  t.equal(again.checks.integrity_hash, 'ok');
  t.equal(again.reason, 'next_link_broken');
  t.equal(again.checks.inclusion, 'failed', 'the signed checkpoint no longer includes the rewritten row');
  t.equal((await proof(8)).reason, 'prev_link_broken');
  t.equal((await gw.api('GET', '/api/v1/ledger/verify-chain')).body.first_broken.sequence_num, 8);

  // 3. The last row rewritten and rehashed has no neighbour to betray it: the checkpoint does.
  await tamper(gw.db, 20, true);
  const last = await proof(20);
  t.equal(last.reason, 'inclusion_proof_invalid');
  t.equal(checkBundle(last as ProofBundle).reason, 'inclusion_proof_invalid', 'the offline check agrees');
});

t.test('checkpoints are signed by a key outside the database; another key does not verify them', async (t) => {
  const gw = await startTestGateway(t);
  const [tr] = await seed(gw, 5);
  await gw.gateway.checkpointNow();
  const keyFile = await fs.stat(`${gw.dataDir}/checkpoint.key`);
  t.equal(keyFile.mode & 0o777, 0o600, 'the generated key file is 0600');
  const tables = await gw.db`select column_name from information_schema.columns where table_name = 'checkpoints'`;
  t.notOk(
    tables.some((c) => /priv|secret/.test(c.column_name)),
    'no key material in the database',
  );

  const other = await startTestGateway(t, { databaseUrl: gw.databaseUrl });
  const res = await other.api('POST', '/api/v1/verify-proof', { body: { trace_id: tr!.id }, token: gw.adminToken });
  t.equal(res.body.intact, false);
  t.equal(res.body.reason, 'checkpoint_signature_invalid', 'a daemon holding another key cannot vouch for these checkpoints');

  const missing = startTestGateway(t, { databaseUrl: gw.databaseUrl, env: { GATEWAY_CHECKPOINT_KEY_FILE: `${gw.dataDir}/nope.key` } });
  await t.rejects(missing, /checkpoint key .* does not exist/, 'a configured key file that is missing stops start-up');

  const shared = await startTestGateway(t, {
    databaseUrl: gw.databaseUrl,
    env: { GATEWAY_CHECKPOINT_KEY_FILE: `${gw.dataDir}/checkpoint.key` },
  });
  const ok = await shared.api('POST', '/api/v1/verify-proof', { body: { trace_id: tr!.id }, token: gw.adminToken });
  t.equal(ok.body.intact, true, 'daemons sharing the key file agree');
});
