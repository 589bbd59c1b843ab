// Anchoring across daemons and at start-up: two daemons asked at once make one epoch and one
// transaction; a daemon without anchoring refuses run-now (409) and writes nothing; a bad key file
// stops start-up with a message that names the file and never its content.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ANVIL_ADDRESS_0, ANVIL_KEY_0, startAnvil } from '../helpers/anvil.js';
import { freshDatabase } from '../helpers/db.js';
import { startTestGateway } from '../helpers/gateway.js';
import { spawnDaemon } from '../helpers/spawn-daemon.js';
import { anchorEnv, anchoredGateway, epochCount, nonceOf, runNow, seedTraces, writeKeyFile } from './setup.js';

t.test('two daemons running run-now at once: one epoch, one transaction', async (t) => {
  const node = await startAnvil(t);
  const one = await anchoredGateway(t, node);
  const two = await anchoredGateway(t, node, { databaseUrl: one.databaseUrl });
  await one.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
  await seedTraces(one, 'default', 4);
  await one.gateway.checkpointNow();
  const runs = await Promise.all([runNow(one), two.api('POST', '/api/v1/ledger/anchor/run', { token: one.adminToken })]);
  t.same(
    runs.map((r) => r.status),
    [200, 200],
  );
  const epochs = runs.map((r) => r.body.epoch).filter((e) => e !== null);
  t.equal(epochs.length, 1, 'one daemon anchored, the other found nothing left to do');
  t.match(epochs[0], { epoch: 1, state: 'ANCHORED' });
  t.same(await epochCount(one), { epochs: 1, leaves: 1 });
  t.equal(await nonceOf(node, ANVIL_ADDRESS_0), 1, 'one transaction');
});

t.test('not configured: 409 anchoring_not_configured, nothing written; status says off', async (t) => {
  const gw = await startTestGateway(t);
  await gw.api('PATCH', '/api/v1/project', { body: { attestation_enabled: true } });
  await seedTraces(gw, 'default', 2);
  await gw.gateway.checkpointNow();
  const res = await runNow(gw);
  t.equal(res.status, 409);
  t.equal(res.body.error.code, 'anchoring_not_configured');
  t.same(await epochCount(gw), { epochs: 0, leaves: 0 });
  const status = await gw.api('GET', '/api/v1/ledger/anchor');
  t.match(status.body, {
    configured: false,
    chain_id: null,
    address: null,
    health: { state: 'off' },
    last_anchored: null,
    open: [],
    recent: [],
  });
  t.same((await gw.api('GET', '/healthz', { token: null })).body, { status: 'ok' }, 'no anchor subsystem where it is off');
  const verified = await gw.api('POST', '/api/v1/verify', { body: { prompt: 'hi' } });
  t.equal(verified.body.should_anchor, true, 'should_anchor follows the project setting');
});

t.test('a bad key file stops start-up; the key is never printed', async (t) => {
  const node = await startAnvil(t);
  const databaseUrl = await freshDatabase(t);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-anchor-start-'));
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const cases: [string, string | null, RegExp][] = [
    ['malformed', `${ANVIL_KEY_0.slice(0, 40)}zz-not-hex`, /does not hold a 0x-prefixed 32-byte hex secp256k1 private key/],
    ['zero', `0x${'0'.repeat(64)}`, /not a valid secp256k1 private key/],
    ['missing', null, /cannot be read \(ENOENT\)/],
  ];
  for (const [name, content, message] of cases) {
    const keyFile = content === null ? path.join(dataDir, 'absent.key') : await writeKeyFile(t, content);
    const daemon = spawnDaemon({ DATABASE_URL: databaseUrl, GATEWAY_DATA_DIR: dataDir, ...anchorEnv(node, keyFile) });
    const exit = await daemon.exit;
    t.equal(exit.code, 1, `${name}: exits`);
    t.match(daemon.stderr(), message, `${name}: says why`);
    t.match(daemon.stderr(), keyFile, `${name}: names the file`);
    if (content !== null) {
      const all = daemon.stdout() + daemon.stderr();
      t.notOk(all.includes(content.slice(2, 30)), `${name}: the file's content is not printed`);
    }
  }
  const tables = await (await import('postgres')).default(databaseUrl, { max: 1, onnotice: () => {} });
  t.teardown(() => tables.end({ timeout: 1 }));
  t.same(await tables`select to_regclass('anchor_epochs') as t`, [{ t: null }], 'stopped before touching the database');
});
