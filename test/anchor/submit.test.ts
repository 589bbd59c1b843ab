// No receipt in time: the worker sends the same nonce again with a higher fee (a replacement),
// at most GATEWAY_ANCHOR_MAX_ATTEMPTS times per cycle, then marks the epoch FAILED; the next
// cycle re-submits it. anvil with automine off plays a chain that does not mine.
import t from 'tap';
import { startAnvil } from '../helpers/anvil.js';
import { anchoredGateway, runNow, seedTraces } from './setup.js';

t.test('replacement with the same nonce and a higher fee; FAILED after max attempts, then re-submitted', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node, { env: { GATEWAY_ANCHOR_RECEIPT_TIMEOUT_SECONDS: '1', GATEWAY_ANCHOR_MAX_ATTEMPTS: '3' } });
  await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
  await seedTraces(gw, 'default', 2);
  await gw.gateway.checkpointNow();
  const tip = BigInt((await node.rpc('eth_maxPriorityFeePerGas')) as string);
  await node.rpc('evm_setAutomine', [false]);

  // Epoch 1: mined only after the worker has replaced its first transaction.
  const running = runNow(gw);
  for (;;) {
    const [row] = await gw.db`select attempts from anchor_epochs where epoch = 1`;
    if (row && row.attempts >= 2) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await node.rpc('evm_mine');
  const first = (await running).body.epoch;
  t.equal(first.state, 'ANCHORED');
  t.ok(first.tx_hashes.length >= 2, `${first.tx_hashes.length} transactions sent`);
  t.equal(new Set(first.tx_hashes).size, first.tx_hashes.length, 'each one a different transaction');
  t.ok(first.tx_hashes.includes(first.tx_hash), 'the mined one is one of those sent');
  const mined = (await node.rpc('eth_getTransactionByHash', [first.tx_hash])) as Record<string, string>;
  t.equal(Number(mined.nonce), 0, 'the same nonce');
  t.ok(BigInt(mined.maxPriorityFeePerGas!) > tip, 'a replacement carries a higher fee than the first estimate');
  t.equal((await gw.db`select nonce from anchor_epochs where epoch = 1`)[0]!.nonce, '0');

  // Epoch 2: never mined within the attempts: FAILED, degraded, then re-submitted by run-now.
  await seedTraces(gw, 'default', 1);
  await gw.gateway.checkpointNow();
  const failed = (await runNow(gw)).body.epoch;
  t.match(failed, { epoch: 2, state: 'FAILED', attempts: 3, last_error: /no receipt for 3 transaction\(s\) at nonce 1/ });
  t.equal(failed.tx_hashes.length, 3);
  t.match((await gw.api('GET', '/healthz', { token: null })).body.anchor, { state: 'degraded', reason: /epoch 2 FAILED/ });
  const before = (await gw.db`select max_fee_per_gas, max_priority_fee_per_gas from anchor_epochs where epoch = 2`)[0]!;
  await node.rpc('anvil_dropAllTransactions'); // the pool forgot them: only a re-submission can anchor epoch 2
  await node.rpc('evm_setAutomine', [true]);
  const again = (await runNow(gw)).body.epoch;
  t.match(again, { epoch: 2, state: 'ANCHORED', attempts: 4, last_error: null });
  t.equal(again.tx_hash, again.tx_hashes[3], 'the re-submitted transaction was mined');
  const resent = (await node.rpc('eth_getTransactionByHash', [again.tx_hash])) as Record<string, string>;
  t.equal(Number(resent.nonce), 1, 'same nonce as before');
  t.ok(BigInt(resent.maxPriorityFeePerGas!) > BigInt(before.max_priority_fee_per_gas), 'fee raised over the last attempt');
  t.ok(BigInt(resent.maxFeePerGas!) > BigInt(before.max_fee_per_gas));
  t.equal((await gw.db`select count(*)::int as n from anchor_epochs`)[0]!.n, 2);
});
