// The address guard at delivery: a target allowed when it was subscribed is refused, before any
// packet is sent, once the allow-list no longer holds it (a daemon started without it) or its name
// now resolves elsewhere (here: the stored URL moved to the cloud metadata address). Refused is
// dead at once, with the reason in the delivery log.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import { eventually } from '../helpers/eventually.js';
import { startTestGateway } from '../helpers/gateway.js';
import { startReceiver } from '../helpers/webhook-receiver.js';

const KEY = randomBytes(32).toString('base64');
const FAST = { GATEWAY_NOTIFICATION_POLL_MS: '25', GATEWAY_NOTIFICATION_RETRY_BASE_MS: '25', GATEWAY_ENCRYPTION_KEY: KEY };

const rx = await startReceiver(t);
// The first daemon allows loopback, and never gets to deliver (its first pass is an hour away).
const first = await startTestGateway(t, {
  env: { ...FAST, GATEWAY_UPSTREAM_ALLOW: '127.0.0.1/32', GATEWAY_NOTIFICATION_POLL_MS: '3600000' },
});
const created = await first.api('POST', '/api/v1/notifications/subscriptions', {
  body: { url: rx.url('/guarded'), events: ['approval.decided'] },
});
const moved = await first.api('POST', '/api/v1/notifications/subscriptions', {
  body: { url: rx.url('/moved'), events: ['approval.decided'] },
});
const queued = (await first.api('POST', `/api/v1/notifications/subscriptions/${created.body.id}/test`)).body.id as string;
await first.gateway.close();

t.test('allowed at subscription, refused at delivery once the allow-list no longer holds it', async (t) => {
  t.equal(created.status, 201);
  const second = await startTestGateway(t, { databaseUrl: first.databaseUrl, env: FAST });
  t.ok(
    await eventually(async () => (await second.db`select status from notification_deliveries where id = ${queued}`)[0]?.status === 'dead'),
  );
  const [row] = await second.db`select status, attempts, last_status, last_error from notification_deliveries where id = ${queued}`;
  t.match(row, {
    status: 'dead',
    attempts: 1,
    last_status: null,
    last_error: 'refused before sending: upstream address 127.0.0.1 is loopback; not in GATEWAY_UPSTREAM_ALLOW',
  });
  t.same(rx.received(), [], 'no request reached the receiver');
  const before = (await second.db`select count(*)::int as n from notification_subscriptions`)[0]!.n;
  const refused = await second.api('POST', '/api/v1/notifications/subscriptions', {
    token: first.adminToken,
    body: { url: rx.url('/guarded').replace('127.0.0.1', 'localhost'), events: ['approval.decided'] },
  });
  t.equal(refused.status, 400, 'a name is judged by the address it resolves to, before anything is stored');
  t.match(refused.body.error, { code: 'notification_url_forbidden', message: /resolves to 127\.0\.0\.1 \(loopback\)/ });
  t.equal((await second.db`select count(*)::int as n from notification_subscriptions`)[0]!.n, before);

  // The name of a subscribed target now points at the metadata service (DNS changed after subscribing).
  await second.db`update notification_subscriptions set url = 'http://169.254.169.254/latest/meta-data/' where id = ${moved.body.id}`;
  const test = await second.api('POST', `/api/v1/notifications/subscriptions/${moved.body.id}/test`, { token: first.adminToken });
  t.ok(
    await eventually(
      async () => (await second.db`select status from notification_deliveries where id = ${test.body.id}`)[0]?.status === 'dead',
    ),
  );
  const log = await second.api('GET', `/api/v1/notifications/deliveries?subscription_id=${moved.body.id}`, { token: first.adminToken });
  t.match(log.body.deliveries, [
    {
      id: test.body.id,
      status: 'dead',
      last_error: 'refused before sending: upstream address 169.254.169.254 is link-local; not in GATEWAY_UPSTREAM_ALLOW',
    },
  ]);
});
