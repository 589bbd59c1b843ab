// The anvil helper itself: a node that answers, mines a transaction, and keeps its chain across a
// stop and start (the anchoring tests rely on that to take the node away mid-epoch).
import t from 'tap';
import { ANVIL_ADDRESS_0, startAnvil } from '../helpers/anvil.js';

t.test('anvil starts, mines, and keeps its state across a restart', async (t) => {
  const node = await startAnvil(t);
  t.equal(Number(await node.rpc('eth_chainId')), 114);
  const hash = await node.rpc('eth_sendTransaction', [{ from: ANVIL_ADDRESS_0, to: ANVIL_ADDRESS_0, value: '0x0', data: '0x4757413100' }]);
  const receipt = await node.receipt(hash as string);
  t.equal(receipt.status, '0x1');
  await node.stop();
  await t.rejects(node.rpc('eth_chainId'), 'a stopped node does not answer');
  await node.start();
  const again = (await node.rpc('eth_getTransactionByHash', [hash])) as { input: string } | null;
  t.equal(again?.input, '0x4757413100', 'the transaction survives the restart');
});
