// The delivery worker against a real receiver on 127.0.0.1 (allowed through GATEWAY_UPSTREAM_ALLOW,
// as the MCP tests allow loopback upstreams): every delivery signed, in order, once; a failing
// receiver retried until it acknowledges; no redirect followed; a receiver that never answers timed
// out and retried; the retry window closing on a failing one (dead); two daemons on one database
// delivering each event once. Retry delays are configured short; no assertion is about time.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { backoffMs } from '../../daemon/delivery/deliver.js';
import { eventually } from '../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const ENV = {
  GATEWAY_UPSTREAM_ALLOW: '127.0.0.1/32',
  GATEWAY_NOTIFICATION_POLL_MS: '25',
  GATEWAY_NOTIFICATION_RETRY_BASE_MS: '25',
  GATEWAY_NOTIFICATION_RETRY_MAX_MS: '100',
  GATEWAY_NOTIFICATION_TIMEOUT_SECONDS: '1',
  // Both daemons of the last test open the same sealed secrets.
  GATEWAY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

const gw = await startTestGateway(t, { env: ENV });
const rx = await startReceiver(t);

async function subscribe(path: string, format: 'standard' | 'slack' = 'standard'): Promise<string> {
  const res = await gw.api('POST', '/api/v1/notifications/subscriptions', {
    body: { url: rx.url(path), events: ['approval.decided'], format },
  });
  if (res.status !== 201) throw new Error(`subscribe: ${res.status} ${res.text}`);
  rx.secret(path, res.body.secret);
  return res.body.id as string;
}

async function sendTest(subscriptionId: string, on: TestGateway = gw): Promise<string> {
  const res = await on.api('POST', `/api/v1/notifications/subscriptions/${subscriptionId}/test`, { token: gw.adminToken });
  if (res.status !== 202) throw new Error(`test: ${res.status} ${res.text}`);
  return res.body.id as string;
}

// biome-ignore lint/suspicious/noExplicitAny: a stored delivery row, read by column
const row = async (id: string): Promise<any> => (await gw.db`select * from notification_deliveries where id = ${id}`)[0];
const settledAs = (id: string, status: string) => eventually(async () => (await row(id))?.status === status);

t.test('backoff: exponential, capped, jittered into [half, full]', async (t) => {
  t.equal(
    backoffMs(1, 100, 10_000, () => 1),
    100,
  );
  t.equal(
    backoffMs(2, 100, 10_000, () => 1),
    200,
  );
  t.equal(
    backoffMs(5, 100, 10_000, () => 1),
    1600,
  );
  t.equal(
    backoffMs(30, 100, 10_000, () => 1),
    10_000,
    'capped',
  );
  t.equal(
    backoffMs(3, 100, 10_000, () => 0),
    200,
    'jitter takes at most half',
  );
  const delays = Array.from({ length: 50 }, () => backoffMs(4, 100, 10_000));
  t.ok(
    delays.every((d) => d >= 400 && d <= 800),
    'random jitter stays within [400, 800]',
  );
});

t.test('every delivery is signed, in the order the events happened, each once', async (t) => {
  const sub = await subscribe('/ordered');
  const ids: string[] = [];
  for (let i = 0; i < 8; i++) ids.push(await sendTest(sub));
  t.ok(await eventually(() => rx.received('/ordered').length >= 8), 'all eight arrived');
  const got = rx.received('/ordered');
  t.same(
    got.map((r) => r.id),
    ids,
    'received in order, by their webhook-id',
  );
  t.ok(
    got.every((r) => r.verified),
    'every signature verifies with the secret shown at creation',
  );
  t.same(rx.duplicates('/ordered'), []);
  const first = got[0]!;
  t.equal(first.headers['content-type'], 'application/json');
  t.match(first.raw, /^\{"type":"test","timestamp":"[^"]+","data":\{/, 'the standard body {type, timestamp, data}');
  t.match(first.body, { type: 'test', data: { subscription_id: sub } });
  t.ok(Math.abs(Number(first.timestamp) - Date.now() / 1000) < 600, 'webhook-timestamp is the attempt time in seconds');
  for (const id of ids) t.match(await row(id), { status: 'delivered', attempts: 1, last_status: 204, last_error: null });
});

t.test('a receiver answering 500 then 200 gets the event again, and it is acknowledged once', async (t) => {
  const sub = await subscribe('/flaky');
  rx.answer('/flaky', (n) => (n === 0 ? 500 : 200));
  const id = await sendTest(sub);
  t.ok(await settledAs(id, 'delivered'));
  const got = rx.received('/flaky');
  t.same(
    got.map((r) => [r.id, r.answered]),
    [
      [id, 500],
      [id, 200],
    ],
    'the same webhook-id both times',
  );
  t.ok(got.every((r) => r.verified));
  t.not(got[0]!.signature, '', 'each attempt signed');
  t.match(await row(id), { status: 'delivered', attempts: 2, last_status: 200, last_error: null });
  t.same(rx.duplicates('/flaky'), []);
});

t.test("after a failure, the subscription's other claimed rows go back unattempted, and are delivered next", async (t) => {
  const sub = await subscribe('/batch');
  rx.answer('/batch', (n) => (n === 0 ? 503 : 204));
  // Three events committed at once, so one pass claims them together, oldest first.
  const ids = ['msg_batch_1', 'msg_batch_2', 'msg_batch_3'];
  await gw.db`
    insert into notification_deliveries (id, project_id, subscription_id, event_type, body)
    select x.id, s.project_id, s.id, 'test', jsonb_build_object('type', 'test', 'timestamp', now()::text, 'data', '{}'::jsonb)
    from unnest(${ids}::text[]) with ordinality as x(id, n), notification_subscriptions s where s.id = ${sub} order by n`;
  for (const id of ids) t.ok(await settledAs(id, 'delivered'), id);
  t.same(
    await Promise.all(ids.map(async (id) => (await row(id)).attempts)),
    [2, 1, 1],
    'the failed one took two attempts; the two behind it one each',
  );
  t.same(rx.received('/batch')[0]!.id, 'msg_batch_1', 'the oldest went first');
  t.same(rx.duplicates('/batch'), []);
});

t.test('a redirect is not followed: the attempt counts as failed and is retried', async (t) => {
  const sub = await subscribe('/moved');
  rx.answer('/moved', () => 302);
  const id = await sendTest(sub);
  t.ok(await eventually(async () => (await row(id)).attempts >= 2), 'retried');
  t.match(await row(id), { status: 'pending', last_status: 302, last_error: 'HTTP 302 (redirects are not followed)' });
  t.same(rx.received('/redirected'), [], 'nothing went where the redirect pointed');
  const removed = await gw.api('DELETE', `/api/v1/notifications/subscriptions/${sub}`);
  t.match(removed.body, { id: sub, removed: true, undelivered_dropped: 1 });
  t.ok(await settledAs(id, 'dead'), 'its undelivered event is dead, and stays in the log');
  t.equal((await row(id)).last_error, 'subscription removed');
});

t.test('a receiver that never answers is given up on after the time limit, and retried', async (t) => {
  const sub = await subscribe('/slow');
  rx.answer('/slow', (n) => (n === 0 ? 'hang' : 204));
  const id = await sendTest(sub);
  t.ok(await settledAs(id, 'delivered'));
  t.same(
    rx.received('/slow').map((r) => [r.id, r.answered]),
    [
      [id, null],
      [id, 204],
    ],
  );
  t.match(await row(id), { attempts: 2, last_status: 204 });
});

t.test('retries end once the retry window after the event has passed: dead, with the last reason', async (t) => {
  const sub = await subscribe('/down');
  rx.answer('/down', () => 503);
  const id = await sendTest(sub);
  t.ok(await eventually(async () => (await row(id)).attempts >= 1));
  await gw.db`update notification_deliveries set created_at = created_at - interval '25 hours' where id = ${id}`;
  t.ok(await settledAs(id, 'dead'));
  t.match(await row(id), { status: 'dead', last_status: 503, last_error: 'HTTP 503; retries ended' });
  const attempts = (await row(id)).attempts as number;
  const listed = await gw.api('GET', `/api/v1/notifications/deliveries?subscription_id=${sub}&status=dead`);
  t.match(listed.body.deliveries, [{ id, status: 'dead', attempts, last_error: 'HTTP 503; retries ended', next_attempt_at: null }]);
  const before = rx.received('/down').length;
  await sendTest(sub); // a later pass: the dead row is not tried again
  t.ok(await eventually(() => rx.received('/down').length > before));
  t.equal(rx.received('/down').filter((r) => r.id === id).length, attempts, 'no attempt after dead');
  t.equal((await gw.api('DELETE', `/api/v1/notifications/subscriptions/${sub}`)).status, 200);
});

t.test('the slack format: {text, blocks}, signed like the standard one', async (t) => {
  const sub = await subscribe('/slack', 'slack');
  const id = await sendTest(sub);
  t.ok(await settledAs(id, 'delivered'));
  const [got] = rx.received('/slack');
  t.ok(got!.verified);
  t.same(Object.keys(got!.body).sort(), ['blocks', 'text']);
  t.match(got!.body.text, /test event/);
  t.match((await row(id)).body, { type: 'test', data: { subscription_id: sub } }, 'the log keeps the event itself');
});

t.test('two daemons on one database deliver each event once', async (t) => {
  const second = await startTestGateway(t, { databaseUrl: gw.databaseUrl, env: ENV });
  const sub = await subscribe('/both');
  const ids: string[] = [];
  for (let i = 0; i < 40; i++) ids.push(await sendTest(sub, i % 2 === 0 ? gw : second));
  t.ok(
    await eventually(async () => {
      const [r] =
        await gw.db`select count(*)::int as n from notification_deliveries where subscription_id = ${sub} and status = 'delivered'`;
      return r!.n === 40;
    }, 30_000),
  );
  const got = rx.received('/both');
  t.equal(got.length, 40, 'forty requests for forty events: none sent twice');
  t.same(new Set(got.map((r) => r.id)), new Set(ids));
  t.same(rx.duplicates('/both'), []);
  t.ok(got.every((r) => r.verified));
  const attempts = await gw.db`select distinct attempts from notification_deliveries where subscription_id = ${sub}`;
  t.same(
    attempts.map((a) => a.attempts),
    [1],
    'each claimed by one daemon, once',
  );
});
