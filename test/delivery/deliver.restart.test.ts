// The outbox survives the daemon: real gatewayd processes (spawned as systemd would run them) on one
// database. An event queued by a daemon killed (SIGKILL) before delivering is delivered by the next
// daemon; a daemon killed while a delivery is in flight leaves it to be taken again once its lease
// ends, and the receiver acknowledges it once.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { freshDatabase, inspect } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { spawnDaemon, type Spawned } from '../helpers/spawn-daemon.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const databaseUrl = await freshDatabase(t);
const db = inspect(t, databaseUrl);
const rx = await startReceiver(t);
const BASE_ENV = {
  DATABASE_URL: databaseUrl,
  GATEWAY_UPSTREAM_ALLOW: '127.0.0.1/32',
  GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  GATEWAY_NOTIFICATION_RETRY_BASE_MS: '25',
  GATEWAY_NOTIFICATION_TIMEOUT_SECONDS: '1',
  GATEWAY_LOG_LEVEL: 'info',
};

async function start(env: Record<string, string>): Promise<{ daemon: Spawned; url: string; dataDir: string }> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-notify-'));
  const daemon = spawnDaemon({ ...BASE_ENV, GATEWAY_DATA_DIR: dataDir, ...env });
  t.teardown(async () => {
    if (daemon.child.exitCode === null && daemon.child.signalCode === null) daemon.child.kill('SIGTERM');
    await daemon.exit;
    await fs.rm(dataDir, { recursive: true, force: true });
  });
  return { daemon, url: await daemon.url, dataDir };
}

async function kill(d: Spawned): Promise<void> {
  d.child.kill('SIGKILL');
  await d.exit;
}

// The first daemon's delivery pass is an hour away: whatever it queues waits in the outbox.
const first = await start({ GATEWAY_NOTIFICATION_POLL_MS: '3600000' });
const token = (await fs.readFile(path.join(first.dataDir, 'admin.token'), 'utf8')).trim();
const api = async (base: string, method: string, route: string, body?: unknown) => {
  const res = await fetch(base + route, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: the parsed answer of any route
  return { status: res.status, body: (await res.json()) as any };
};

t.test('an event queued by a daemon killed before delivering is delivered by the next one, once', async (t) => {
  const sub = await api(first.url, 'POST', '/api/v1/notifications/subscriptions', {
    url: rx.url('/survives'),
    events: ['project.emergency_stop.activated', 'project.emergency_stop.lifted'],
  });
  t.equal(sub.status, 201);
  rx.secret('/survives', sub.body.secret);
  t.equal((await api(first.url, 'POST', '/api/v1/project/emergency-stop', { reason: 'drill' })).status, 200);
  t.equal((await api(first.url, 'POST', '/api/v1/project/emergency-stop/lift', { reason: 'drill over' })).status, 200);
  const queued = await db`select id, event_type, status from notification_deliveries order by seq`;
  t.match(queued, [
    { event_type: 'project.emergency_stop.activated', status: 'pending' },
    { event_type: 'project.emergency_stop.lifted', status: 'pending' },
  ]);
  await kill(first.daemon);
  t.same(rx.received(), [], 'nothing was sent before the kill');

  const second = await start({ GATEWAY_NOTIFICATION_POLL_MS: '25' });
  t.ok(await eventually(async () => (await db`select 1 from notification_deliveries where status = 'delivered'`).length === 2, 30_000));
  const got = rx.received('/survives');
  t.same(
    got.map((r) => r.id),
    queued.map((q) => q.id),
    'both delivered, in order, once each',
  );
  t.ok(got.every((r) => r.verified));
  t.match(got[0]!.body, { type: 'project.emergency_stop.activated', data: { reason: 'drill', activated_by: 'admin', approvals_ended: 0 } });
  t.match(got[1]!.body, { type: 'project.emergency_stop.lifted', data: { reason: 'drill over', lifted_by: 'admin' } });
  await kill(second.daemon);
});

t.test('a daemon killed mid-delivery: the next daemon takes the row when its lease ends', async (t) => {
  const third = await start({ GATEWAY_NOTIFICATION_POLL_MS: '25' });
  const sub = await api(third.url, 'POST', '/api/v1/notifications/subscriptions', {
    url: rx.url('/inflight'),
    events: ['approval.decided'],
  });
  rx.secret('/inflight', sub.body.secret);
  rx.answer('/inflight', (n) => (n === 0 ? 'hang' : 200));
  const queued = await api(third.url, 'POST', `/api/v1/notifications/subscriptions/${sub.body.id}/test`);
  t.ok(await eventually(() => rx.received('/inflight').length === 1), 'the first attempt is in flight');
  await kill(third.daemon);

  await start({ GATEWAY_NOTIFICATION_POLL_MS: '25' });
  t.ok(
    await eventually(
      async () => (await db`select status from notification_deliveries where id = ${queued.body.id}`)[0]?.status === 'delivered',
      60_000,
    ),
  );
  t.same(
    rx.received('/inflight').map((r) => [r.id, r.answered]),
    [
      [queued.body.id, null],
      [queued.body.id, 200],
    ],
    'sent again under the same webhook-id, acknowledged once',
  );
  t.same(rx.duplicates('/inflight'), []);
});
