// What anchoring does when the node is away, out of funds or on another chain: the epoch waits
// with the reason in last_error, /healthz and /metrics say anchoring is degraded, the command
// center lists it, and decisions go on being made and recorded.
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import t, { type Test } from 'tap';
import { ANVIL_ADDRESS_0, startAnvil } from '../helpers/anvil.js';
import type { TestGateway } from '../helpers/gateway.js';
import { anchoredGateway, epochCount, nonceOf, runNow, seedTraces } from './setup.js';

async function readyToAnchor(gw: TestGateway): Promise<void> {
  await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
  await seedTraces(gw, 'default', 3);
  await gw.gateway.checkpointNow();
}

async function decisionsStillWork(t: Test, gw: TestGateway): Promise<void> {
  const res = await gw.api('POST', '/api/v1/verify', { body: { prompt: 'still answered while anchoring is degraded' } });
  t.equal(res.status, 200, 'verify answers normally');
  t.equal(res.body.flare_status, 'PENDING');
  const row = await gw.db`select decision from traces where id = ${res.body.trace_id}`;
  t.equal(row[0]?.decision, 'PASSED', 'its trace is recorded');
}

async function degraded(t: Test, gw: TestGateway, reason: RegExp): Promise<void> {
  const health = await gw.api('GET', '/healthz', { token: null });
  t.equal(health.status, 200, 'anchoring never fails the daemon');
  t.match(health.body, { status: 'degraded', degraded: ['anchor'], anchor: { state: 'degraded', reason } });
  t.match((await gw.api('GET', '/metrics', { token: null })).text, /gateway_anchor_degraded 1/);
  const cc = await gw.api('GET', '/api/v1/command-center');
  t.ok(
    cc.body.action_items.some((i: { type: string }) => i.type === 'anchoring_degraded'),
    'command-center action item',
  );
}

t.test('node stopped mid-epoch: the epoch waits, then the same epoch is anchored', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node);
  await readyToAnchor(gw);
  await node.stop();
  const down = await runNow(gw);
  t.equal(down.status, 200);
  t.match(down.body.epoch, { epoch: 1, state: 'PENDING', leaf_count: 1, last_error: /unreachable/ });
  await degraded(t, gw, /epoch 1 PENDING: the node is unreachable/);
  await decisionsStillWork(t, gw);
  const status = await gw.api('GET', '/api/v1/ledger/anchor');
  t.equal(status.body.open.length, 1);
  t.equal(status.body.health.state, 'degraded');

  await node.start();
  const up = await runNow(gw);
  t.match(up.body.epoch, { epoch: 1, state: 'ANCHORED', last_error: null });
  t.same(await epochCount(gw), { epochs: 1, leaves: 1 }, 'no duplicate epoch, no lost leaf');
  t.equal(await nonceOf(node, ANVIL_ADDRESS_0), 1, 'one transaction');
  t.same((await gw.api('GET', '/healthz', { token: null })).body, { status: 'ok', anchor: { state: 'ok', reason: null } });
  const cc = await gw.api('GET', '/api/v1/command-center');
  t.notOk(
    cc.body.action_items.some((i: { type: string }) => i.type === 'anchoring_degraded'),
    'item gone once anchored',
  );
});

t.test('a key without funds: PENDING with a reason about funds, nothing blocked', async (t) => {
  const node = await startAnvil(t);
  const key = generatePrivateKey();
  const gw = await anchoredGateway(t, node, { key });
  await readyToAnchor(gw);
  const res = await runNow(gw);
  t.match(res.body.epoch, {
    epoch: 1,
    state: 'PENDING',
    attempts: 0,
    tx_hashes: [],
    last_error: /insufficient funds: 0x[0-9a-fA-F]{40} holds 0 wei/,
  });
  t.notMatch(res.body.epoch.last_error, key.slice(2), 'the key is not in the error');
  await degraded(t, gw, /insufficient funds/);
  await decisionsStillWork(t, gw);
  t.equal(await nonceOf(node, privateKeyToAddress(key)), 0, 'nothing sent');
});

t.test('wrong chain id: nothing sent, a clear error', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node, { env: { GATEWAY_ANCHOR_CHAIN_ID: '14' } });
  await readyToAnchor(gw);
  const res = await runNow(gw);
  t.match(res.body.epoch, {
    state: 'PENDING',
    chain_id: 14,
    last_error: 'the node reports chain id 114 but GATEWAY_ANCHOR_CHAIN_ID is 14; nothing sent',
  });
  t.equal(await nonceOf(node, ANVIL_ADDRESS_0), 0, 'nothing sent');
  await degraded(t, gw, /chain id 114/);
});
