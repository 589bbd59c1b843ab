// gatewayctl anchor status and run-now, compiled, against a daemon anchoring on anvil.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ANVIL_ADDRESS_0, startAnvil } from '../../helpers/anvil.js';
import { runCli } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { anchoredGateway, seedTraces } from '../../anchor/setup.js';

const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-anchor-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const ctl = (url: string, token: string, args: string[]) =>
  runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: url, GATEWAY_TOKEN: token });

t.test('anchor status and run-now', async (t) => {
  const node = await startAnvil(t);
  const gw = await anchoredGateway(t, node);
  await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });

  const nothing = await ctl(gw.url, gw.adminToken, ['anchor', 'run-now']);
  t.equal(nothing.code, 0, nothing.stderr);
  t.match(nothing.stdout, /Nothing to anchor/);

  await seedTraces(gw, 'default', 2);
  await gw.gateway.checkpointNow();
  const run = await ctl(gw.url, gw.adminToken, ['anchor', 'run-now', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.json, { ran: true, epoch: { epoch: 1, state: 'ANCHORED', leaf_count: 1 } });

  const status = await ctl(gw.url, gw.adminToken, ['anchor', 'status']);
  t.equal(status.code, 0, status.stderr);
  t.match(status.stdout, /configured:\s+true/);
  t.match(status.stdout, new RegExp(`address:\\s+${ANVIL_ADDRESS_0}`));
  t.match(status.stdout, /health:\s+ok/);
  t.match(status.stdout, /EPOCH\s+STATE\s+LEAVES\s+TX/);
  t.match(status.stdout, new RegExp(`\\n1\\s+ANCHORED\\s+1\\s+${run.json.epoch.tx_hash}`));
  const json = await ctl(gw.url, await gw.key('viewer'), ['anchor', 'status', '--json']);
  t.match(json.json, { configured: true, chain_id: 114, last_anchored: { epoch: 1 } });

  const viewer = await ctl(gw.url, await gw.key('viewer'), ['anchor', 'run-now']);
  t.equal(viewer.code, 1, 'refused: exit 1');
  t.match(viewer.stderr, /^Error: forbidden: /m);

  // The node goes away: the new epoch waits with an error, and run-now says so with exit 1.
  await seedTraces(gw, 'default', 1);
  await gw.gateway.checkpointNow();
  await node.stop();
  const stuck = await ctl(gw.url, gw.adminToken, ['anchor', 'run-now']);
  t.equal(stuck.code, 1);
  t.match(stuck.stdout, /state:\s+PENDING/);
  t.match(stuck.stdout, /last_error:\s+the node is unreachable/);
  const degraded = await ctl(gw.url, gw.adminToken, ['anchor', 'status']);
  t.match(degraded.stdout, /health:\s+degraded/);
});

t.test("run-now where anchoring is not configured: the daemon's 409, exit 1", async (t) => {
  const gw = await startTestGateway(t);
  const res = await ctl(gw.url, gw.adminToken, ['anchor', 'run-now']);
  t.equal(res.code, 1);
  t.match(res.stderr, /^Error: anchoring_not_configured: /m);
  const status = await ctl(gw.url, gw.adminToken, ['anchor', 'status']);
  t.match(status.stdout, /configured:\s+false/);
  t.match(status.stdout, /health:\s+off/);
});
