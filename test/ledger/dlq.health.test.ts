import t from 'tap';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { startGateway } from '../../daemon/app.js';
import { loadConfig } from '../../daemon/config.js';
import { connect } from '../../daemon/db/connect.js';
import { migrate } from '../../daemon/db/migrate.js';
import { governanceHeaders } from '../../daemon/http/governance-headers.js';
import { DeadLetterQueue } from '../../daemon/ledger/dlq.js';
import { checkChain } from '../../daemon/ledger/check-chain.js';
import { createLogger } from '../../daemon/log.js';
import { bootstrap } from '../../daemon/project/bootstrap.js';
import { freshDatabase } from '../helpers/db.js';
import { startTestGateway } from '../helpers/gateway.js';
import { stoppablePostgres } from '../helpers/stoppable-postgres.js';

const trace = (n: number) => ({ traceType: 'TEST', decision: 'PASSED', content: { n } });

async function until(what: string, cond: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

t.test('PostgreSQL down: traces queue, /healthz names the database and the trace store; back: replayed, ok', async (t) => {
  const pg = await stoppablePostgres(t);
  const gw = await startTestGateway(t, { databaseUrl: await pg.createDatabase('gw') });
  const first = await gw.gateway.writer.appendOrQueue('default', trace(1));
  t.same(governanceHeaders(first), { 'X-Gateway-Status': 'healthy', 'X-Gateway-Trace-Persisted': 'db' });

  await pg.stop('fast');
  const queued = await gw.gateway.writer.appendOrQueue('default', trace(2));
  t.equal(queued.persisted, 'dlq');
  t.same(governanceHeaders(queued), {
    'X-Gateway-Status': 'degraded',
    'X-Gateway-Trace-Persisted': 'dlq',
    'X-Gateway-Degraded-Subsystems': 'trace_store',
  });
  t.ok((await fs.stat(path.join(gw.dataDir, 'dlq', 'traces.log'))).size > 0, 'the queue lives in the data dir');
  const down = await gw.api('GET', '/healthz', { token: null });
  t.equal(down.status, 503);
  t.same(down.body, { status: 'unavailable', failing: ['database'], degraded: ['trace_store'] });

  await pg.start();
  await until('replay', async () => (await gw.api('GET', '/healthz', { token: null })).body?.status === 'ok');
  const rows = await gw.db`select t.id::text as id, c.body from traces t join trace_content c on c.trace_id = t.id
                           where t.project_id = 'default' order by t.sequence_num`;
  t.same(
    rows.map((r) => r.body.n),
    [1, 2],
  );
  t.equal(rows[1]!.id, queued.id, "the id answered while queued is the row's id");
  t.equal((await checkChain(gw.gateway.sql, 'default', 'traces')).intact, true);
  t.match(gw.logLines.join(''), /PostgreSQL unreachable: traces go to the dead-letter queue/);
  t.match(gw.logLines.join(''), /dead-letter queue replayed into the ledger/);
});

t.test('a queue left by an earlier run: /healthz 200 degraded and /metrics show it until it is replayed', async (t) => {
  const url = await freshDatabase(t);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-dlq-health-'));
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const setup = connect(url, { max: 2, instanceId: 'setup' });
  await migrate(setup);
  await bootstrap(setup, dataDir);
  await setup.end();
  const left = new DeadLetterQueue(path.join(dataDir, 'dlq'));
  await left.append([
    { v: 1, id: '0b3f5b8e-6a55-4d6e-9d2b-2f7d3c1e9a10', project_id: 'default', occurred_at: '2026-01-02T03:04:05.000Z', trace: trace(1) },
  ]);
  await left.close();

  // Holding the project's chain head keeps the replay waiting while the database answers.
  const holder = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => holder.end({ timeout: 1 }));
  let release!: () => void;
  const released = new Promise<void>((r) => {
    release = r;
  });
  let locked!: () => void;
  const isLocked = new Promise<void>((r) => {
    locked = r;
  });
  const holding = holder.begin(async (tx) => {
    await tx`select 1 from ledger_heads where project_id = 'default' and stream = 'traces' for update`;
    locked();
    await released;
  });
  await isLocked;

  const config = loadConfig({ DATABASE_URL: url, GATEWAY_DATA_DIR: dataDir, GATEWAY_LISTEN: '127.0.0.1:0', GATEWAY_LOG_LEVEL: 'silent' });
  const gateway = await startGateway(config, createLogger('silent'));
  t.teardown(() => gateway.close());
  const health = await fetch(gateway.url + '/healthz');
  t.equal(health.status, 200);
  t.same(await health.json(), { status: 'degraded', degraded: ['trace_store'] });
  const during = await gateway.writer.appendOrQueue('default', trace(2));
  t.equal(during.persisted, 'dlq', 'new traces queue behind the old ones');
  const metrics = await (await fetch(gateway.url + '/metrics')).text();
  t.match(metrics, /gateway_trace_dlq_depth 2/);
  t.match(metrics, /gateway_trace_store_degraded 1/);
  t.match(metrics, /gateway_trace_persisted_total\{to="dlq"\} 1/);

  release();
  await holding;
  await until('replay', async () => (await (await fetch(gateway.url + '/healthz')).json()).status === 'ok');
  const after = await (await fetch(gateway.url + '/metrics')).text();
  t.match(after, /gateway_trace_dlq_depth 0/);
  t.match(after, /gateway_trace_store_degraded 0/);
  t.match(after, /gateway_trace_dlq_replayed_total 2/);
  const rows = await gateway.sql`select id::text as id from traces where project_id = 'default' order by sequence_num`;
  t.same(
    rows.map((r) => r.id),
    ['0b3f5b8e-6a55-4d6e-9d2b-2f7d3c1e9a10', during.id],
  );
});
