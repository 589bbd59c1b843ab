// Anchoring end to end against a real anvil node and PostgreSQL: two projects with attestation on
// and one off, one epoch, one transaction read back from the node, and what traces, the verify
// response, the status route and /healthz say about it.
import t from 'tap';
import { decodeAnchorCalldata, epochLeafHash, noteBody } from '../../shared/anchor-format.js';
import { rootFromLeaves } from '../../shared/merkle.js';
import { listTraces } from '../../daemon/traces/list.js';
import { ANVIL_ADDRESS_0, startAnvil } from '../helpers/anvil.js';
import { addProject, anchoredGateway, epochCount, nonceOf, runNow, seedTraces } from './setup.js';

t.test('one epoch over the projects that grew, one transaction, traces ANCHORED', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node);

  const off = await gw.api('POST', '/api/v1/verify', { body: { prompt: 'hello before attestation' } });
  t.equal(off.status, 200);
  t.equal(off.body.should_anchor, false);
  t.notOk('flare_status' in off.body, 'no flare_status while anchoring is not active for the project');

  t.equal((await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } })).status, 200);
  await addProject(gw, 'p2', true);
  await addProject(gw, 'p3', false);
  const verified = await gw.api('POST', '/api/v1/verify', { body: { prompt: 'hello anchored world' } });
  t.equal(verified.status, 200);
  t.equal(verified.body.should_anchor, true);
  t.equal(verified.body.flare_status, 'PENDING');
  const ext = await gw.api('POST', '/api/v1/extensions', { body: { name: 'siem' } });
  const ingested = await gw.api('POST', '/api/v1/webhooks/ingest', {
    token: ext.body.api_key,
    body: { event_type: 'deploy', source: 'ci' },
  });
  t.equal(ingested.status, 202);
  t.match(ingested.body, { should_anchor: true, flare_status: 'PENDING' }, 'webhook ingest answers the same way');
  await seedTraces(gw, 'p2', 3);
  const [p3trace] = await seedTraces(gw, 'p3', 2);
  t.equal((await gw.gateway.checkpointNow()).length, 3, 'three projects grew, three checkpoints');

  const before = await gw.api('GET', `/api/v1/traces?id=${verified.body.trace_id}`);
  t.same([before.body.traces[0].flare_status, before.body.traces[0].flare_tx_hash], ['PENDING', null], 'checkpointed, not yet anchored');

  const run = await runNow(gw);
  t.equal(run.status, 200);
  t.equal(run.body.ran, true);
  const epoch = run.body.epoch;
  t.match(epoch, { epoch: 1, state: 'ANCHORED', leaf_count: 2, chain_id: 114, attempts: 1, last_error: null });
  t.same(epoch.tx_hashes, [epoch.tx_hash]);
  t.type(epoch.block_number, 'number');

  // The transaction as the node has it: to ourselves, no value, exactly the GWA1 calldata.
  const tx = (await node.rpc('eth_getTransactionByHash', [epoch.tx_hash])) as Record<string, string>;
  t.equal(tx.from.toLowerCase(), ANVIL_ADDRESS_0.toLowerCase());
  t.equal(tx.to!.toLowerCase(), ANVIL_ADDRESS_0.toLowerCase());
  t.equal(BigInt(tx.value!), 0n);
  t.equal(tx.type, '0x2', 'EIP-1559');
  t.equal(Number(tx.chainId), 114);
  const decoded = decodeAnchorCalldata(tx.input!);
  t.equal(decoded?.epoch, 1n);
  t.equal(`0x${decoded!.root.toString('hex')}`, epoch.root);
  const receipt = (await node.rpc('eth_getTransactionReceipt', [epoch.tx_hash])) as Record<string, string>;
  t.equal(receipt.status, '0x1');
  t.comment(`anchor transaction gasUsed ${BigInt(receipt.gasUsed!)} effectiveGasPrice ${BigInt(receipt.effectiveGasPrice!)} wei`);

  // The root recomputed here from the two checkpoint bodies in project-id order.
  const notes = await gw.db`select project_id, note from checkpoints where project_id in ('default', 'p2') order by project_id`;
  t.same(
    notes.map((n) => n.project_id),
    ['default', 'p2'],
  );
  const root = rootFromLeaves(notes.map((n) => epochLeafHash(noteBody(n.note as string)!)));
  t.equal(`0x${root.toString('hex')}`, epoch.root, 'RFC 9162 root of the checkpoint bodies');
  t.same(
    (await gw.db`select project_id, leaf_index from anchor_epoch_leaves order by leaf_index`).map((r) => r.project_id),
    ['default', 'p2'],
  );

  const after = await gw.api('GET', `/api/v1/traces?id=${verified.body.trace_id}`);
  t.same([after.body.traces[0].flare_status, after.body.traces[0].flare_tx_hash], ['ANCHORED', epoch.tx_hash]);
  const listed = await gw.api('GET', '/api/v1/traces');
  t.ok(
    listed.body.traces.every((r: { flare_status: string }) => r.flare_status === 'ANCHORED'),
    'every listed trace is covered',
  );

  const newer = await gw.api('POST', '/api/v1/verify', { body: { prompt: 'after the anchor' } });
  const newerRow = await gw.api('GET', `/api/v1/traces?id=${newer.body.trace_id}`);
  t.same(
    [newerRow.body.traces[0].flare_status, newerRow.body.traces[0].flare_tx_hash],
    ['PENDING', null],
    'newer than the anchored checkpoint',
  );

  const p3 = await listTraces(gw.gateway.sql, 'p3', { id: p3trace!.id } as Parameters<typeof listTraces>[2]);
  t.same([p3.traces[0]!.flare_status, p3.traces[0]!.flare_tx_hash], [null, null], 'attestation off: not anchored, no flare fields');

  const status = await gw.api('GET', '/api/v1/ledger/anchor', { token: await gw.key('viewer') });
  t.equal(status.status, 200);
  t.match(status.body, {
    configured: true,
    chain_id: 114,
    address: ANVIL_ADDRESS_0,
    epoch_seconds: 3600,
    health: { state: 'ok', reason: null },
    open: [],
  });
  t.equal(status.body.last_anchored.epoch, 1);
  t.equal(status.body.recent.length, 1);
  const health = await gw.api('GET', '/healthz', { token: null });
  t.same(health.body, { status: 'ok', anchor: { state: 'ok', reason: null } });
  t.match((await gw.api('GET', '/metrics', { token: null })).text, /gateway_anchor_pending_epochs 0/);
});

t.test('nothing grew: run-now makes no epoch and sends nothing', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node);
  await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
  const empty = await runNow(gw);
  t.same(empty.body, { ran: true, epoch: null }, 'no checkpoint yet: nothing to anchor');
  await seedTraces(gw, 'default', 2);
  await gw.gateway.checkpointNow();
  t.equal((await runNow(gw)).body.epoch.state, 'ANCHORED');
  const nonce = await nonceOf(node, ANVIL_ADDRESS_0);
  t.same((await runNow(gw)).body, { ran: true, epoch: null }, 'checkpoint already anchored');
  await seedTraces(gw, 'default', 1); // grew, but not checkpointed yet
  t.same((await runNow(gw)).body, { ran: true, epoch: null }, 'only signed checkpoints are anchored');
  t.equal(await nonceOf(node, ANVIL_ADDRESS_0), nonce, 'no transaction sent');
  t.same(await epochCount(gw), { epochs: 1, leaves: 1 });
});

t.test('refusals write nothing', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node);
  await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
  await seedTraces(gw, 'default', 2);
  await gw.gateway.checkpointNow();
  for (const role of ['viewer', 'editor'] as const) {
    const res = await runNow(gw, await gw.key(role));
    t.equal(res.status, 403, role);
    t.equal(res.body.error.code, 'forbidden');
  }
  t.equal((await runNow(gw, null as unknown as string)).status, 401);
  t.same(await epochCount(gw), { epochs: 0, leaves: 0 });
  t.equal(await nonceOf(node, ANVIL_ADDRESS_0), 0);
});
