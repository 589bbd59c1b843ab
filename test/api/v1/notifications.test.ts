// /api/v1/notifications: Admin only; a subscription answers its signing secret once and never
// again (not in the list, the logs, the delivery log or the admin log, and sealed at rest); bad
// bodies and forbidden targets are 400 with nothing written; remove, test and the delivery log.
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';
import { eventually } from '../../helpers/eventually.js';

const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.1/32', GATEWAY_NOTIFICATION_POLL_MS: '25' } });
const rx = await startReceiver(t);
const ROUTE = '/api/v1/notifications/subscriptions';

const written = async () => ({
  subscriptions: (await gw.db`select count(*)::int as n from notification_subscriptions`)[0]!.n,
  deliveries: (await gw.db`select count(*)::int as n from notification_deliveries`)[0]!.n,
  admin: (await gw.db`select count(*)::int as n from admin_log`)[0]!.n,
});

t.test('create answers the secret once; list, logs, database and delivery log never show it', async (t) => {
  const created = await gw.api('POST', ROUTE, {
    body: { url: rx.url('/hook'), events: ['approval.requested', 'approval.decided'], format: 'standard' },
  });
  t.equal(created.status, 201);
  t.same(Object.keys(created.body).sort(), ['created_at', 'created_by', 'events', 'format', 'id', 'secret', 'url']);
  t.match(created.body, {
    url: rx.url('/hook'),
    events: ['approval.requested', 'approval.decided'],
    format: 'standard',
    created_by: 'admin',
  });
  const secret = created.body.secret as string;
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  const key = secret.slice('whsec_'.length);

  const list = await gw.api('GET', ROUTE);
  t.equal(list.status, 200);
  t.match(list.body.subscriptions, [{ id: created.body.id, url: rx.url('/hook'), format: 'standard' }]);
  t.notOk('secret' in list.body.subscriptions[0], 'no secret field');
  t.notOk(list.text.includes(key), 'the secret is nowhere in the list');

  const [stored] = await gw.db`select secret::text as s from notification_subscriptions`;
  t.notOk(stored!.s.includes(key), 'sealed at rest');
  t.match(JSON.parse(stored!.s), { v: 1, kid: String, iv: String, tag: String, data: String });

  rx.secret('/hook', secret);
  const queued = await gw.api('POST', `${ROUTE}/${created.body.id}/test`);
  t.equal(queued.status, 202);
  t.match(queued.body, { id: /^msg_/, subscription_id: created.body.id, type: 'test' });
  t.ok(await eventually(() => rx.received('/hook').length === 1));
  t.ok(rx.received('/hook')[0]!.verified, 'the receiver verifies with the secret it was shown');
  t.ok(await eventually(async () => (await gw.api('GET', '/api/v1/notifications/deliveries')).body.deliveries[0]?.status === 'delivered'));
  const log = await gw.api('GET', '/api/v1/notifications/deliveries');
  t.notOk(log.text.includes(key), 'not in the delivery log');
  t.notOk(gw.logLines.join('').includes(key), 'not in the daemon log');
  t.notOk(gw.logLines.join('').includes(rx.base), 'the target URL is not logged either (a Slack URL is a credential)');
  const [entry] = await gw.db`select action, details from admin_log where action = 'notification.subscription.create'`;
  t.match(entry, { details: { host: new URL(rx.base).host, events: ['approval.requested', 'approval.decided'], format: 'standard' } });
  t.notOk(JSON.stringify(entry).includes('/hook'), 'the admin log names the host only');
});

t.test('Admin only', async (t) => {
  const before = await written();
  for (const role of ['viewer', 'editor'] as const) {
    const token = await gw.key(role);
    const after = await written();
    const res = await gw.api('POST', ROUTE, { token, body: { url: rx.url('/x'), events: ['approval.decided'] } });
    t.equal(res.status, 403, role);
    t.equal(res.body.error.code, 'forbidden');
    t.equal((await gw.api('GET', ROUTE, { token })).status, 403);
    t.equal((await gw.api('GET', '/api/v1/notifications/deliveries', { token })).status, 403);
    t.same(await written(), after, `${role}: nothing written`);
  }
  t.ok((await written()).admin > before.admin, 'only the two keys were');
});

t.test('bad bodies are 400 validation_error naming the field, nothing written', async (t) => {
  const before = await written();
  const cases: [unknown, RegExp][] = [
    ['not json', /.+/],
    [{ events: ['approval.decided'] }, /url/],
    [{ url: 'ftp://127.0.0.1/x', events: ['approval.decided'] }, /url: expected an http or https URL/],
    [{ url: 'http://user:pw@127.0.0.1/x', events: ['approval.decided'] }, /url: must not carry credentials/],
    [{ url: 'http://', events: ['approval.decided'] }, /url/],
    [{ url: rx.url('/x'), events: [] }, /events/],
    [{ url: rx.url('/x'), events: ['approval.maybe'] }, /events\.0/],
    [{ url: rx.url('/x'), events: ['approval.decided', 'approval.decided'] }, /events: an event is named more than once/],
    [{ url: rx.url('/x'), events: ['approval.decided'], format: 'teams' }, /format/],
    [{ url: rx.url('/x'), events: ['approval.decided'], secret: 'mine' }, /secret|Unrecognized/i],
    [{ url: 'http://nonexistent.invalid/hook', events: ['approval.decided'] }, /url: the host does not resolve/],
  ];
  for (const [body, message] of cases) {
    const res = await gw.api(
      'POST',
      ROUTE,
      typeof body === 'string' ? { body, headers: { 'content-type': 'application/json' } } : { body },
    );
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.error.code, 'validation_error');
    t.match(res.body.error.message, message);
  }
  t.same(await written(), before);
});

t.test('a target on a forbidden address is refused at subscription', async (t) => {
  const before = await written();
  for (const url of [
    'http://169.254.169.254/latest/meta-data/',
    'http://10.1.2.3/hook',
    'http://[::1]:8080/hook',
    'http://127.0.0.2/hook',
  ]) {
    const res = await gw.api('POST', ROUTE, { body: { url, events: ['approval.decided'] } });
    t.equal(res.status, 400, url);
    t.equal(res.body.error.code, 'notification_url_forbidden');
    t.match(res.body.error.message, /not in GATEWAY_UPSTREAM_ALLOW: refused, nothing was stored/);
  }
  t.same(await written(), before);
});

t.test('remove, test of an unknown id, the delivery log with filters and pages', async (t) => {
  const a = (await gw.api('POST', ROUTE, { body: { url: rx.url('/a'), events: ['approval.decided'] } })).body.id as string;
  const b = (await gw.api('POST', ROUTE, { body: { url: rx.url('/b'), events: ['approval.decided'], format: 'slack' } })).body.id as string;
  rx.answer('/b', () => 500);
  for (const id of [a, b, a]) t.equal((await gw.api('POST', `${ROUTE}/${id}/test`)).status, 202);
  t.ok(
    await eventually(
      async () => (await gw.db`select 1 from notification_deliveries where subscription_id = ${a} and status = 'delivered'`).length === 2,
    ),
  );
  const onlyA = await gw.api('GET', `/api/v1/notifications/deliveries?subscription_id=${a}`);
  t.equal(onlyA.body.deliveries.length, 2);
  t.ok(
    onlyA.body.deliveries.every((d: { subscription_id: string; status: string }) => d.subscription_id === a && d.status === 'delivered'),
  );
  t.match(onlyA.body.deliveries[0], {
    type: 'test',
    attempts: 1,
    last_status: 204,
    last_error: null,
    next_attempt_at: null,
    delivered_at: String,
    body: { type: 'test', data: { subscription_id: a } },
  });
  t.ok(
    await eventually(
      async () => (await gw.api('GET', `/api/v1/notifications/deliveries?subscription_id=${b}`)).body.deliveries[0]?.last_status === 500,
    ),
  );
  const pending = await gw.api('GET', `/api/v1/notifications/deliveries?status=pending`);
  t.match(pending.body.deliveries, [{ subscription_id: b, status: 'pending', last_error: 'HTTP 500', next_attempt_at: String }]);

  const all = (await gw.api('GET', '/api/v1/notifications/deliveries')).body.deliveries as { id: string; created_at: string }[];
  const page1 = await gw.api('GET', '/api/v1/notifications/deliveries?limit=2');
  t.same(
    page1.body.deliveries.map((d: { id: string }) => d.id),
    all.slice(0, 2).map((d) => d.id),
    'oldest first',
  );
  t.equal(page1.body.next_cursor, all[1]!.id);
  const page2 = await gw.api('GET', `/api/v1/notifications/deliveries?limit=2&cursor=${page1.body.next_cursor}`);
  t.same(
    page2.body.deliveries.map((d: { id: string }) => d.id),
    all.slice(2, 4).map((d) => d.id),
  );
  for (const q of ['status=lost', 'limit=0', 'limit=1001', 'colour=red']) {
    const res = await gw.api('GET', `/api/v1/notifications/deliveries?${q}`);
    t.equal(res.status, 400, q);
    t.equal(res.body.error.code, 'validation_error');
  }

  const before = await written();
  t.equal((await gw.api('POST', `${ROUTE}/nope/test`)).status, 404);
  t.equal((await gw.api('DELETE', `${ROUTE}/nope`)).status, 404);
  t.same(await written(), before, 'nothing written for unknown ids');
  const removed = await gw.api('DELETE', `${ROUTE}/${b}`);
  t.equal(removed.status, 200);
  t.same(removed.body, { id: b, removed: true, undelivered_dropped: 1 });
  t.match((await gw.api('GET', `/api/v1/notifications/deliveries?subscription_id=${b}`)).body.deliveries, [
    { status: 'dead', last_error: 'subscription removed' },
  ]);
  t.notOk(
    (await gw.api('GET', ROUTE)).body.subscriptions.some((s: { id: string }) => s.id === b),
    'gone from the list',
  );
  t.equal((await gw.api('POST', `${ROUTE}/${b}/test`)).status, 404);
});
