// gatewayctl notifications subscriptions add|list|remove|test and notifications deliveries, the
// compiled CLI against a real gatewayd and a real receiver: the secret printed once (stdout, the
// rest on stderr) and verifying what arrives; list without it; the log with its filters; operator
// mistakes exit 2 with nothing written, daemon refusals exit 1 with the daemon's code.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, type CliRun } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.1/32', GATEWAY_NOTIFICATION_POLL_MS: '25' } });
const rx = await startReceiver(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-notify-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

const ctl = (args: string[]): Promise<CliRun> =>
  runCli(['notifications', ...args], home, {
    GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
    GATEWAY_URL: gw.url,
    GATEWAY_TOKEN: gw.adminToken,
  });
const subscriptions = async () => Number((await gw.db`select count(*)::int as n from notification_subscriptions`)[0]!.n);

let id = '';

t.test('subscriptions add prints the secret once, on stdout alone; the receiver verifies with it', async (t) => {
  const added = await ctl(['subscriptions', 'add', '--url', rx.url('/cli'), '--events', 'approval.requested, approval.decided']);
  t.equal(added.code, 0, added.stderr);
  const secret = added.stdout.trim();
  t.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/, 'stdout is the secret alone');
  t.match(
    added.stderr,
    /Created subscription \S+ \(standard\) to http:\/\/127\.0\.0\.1:\d+\/cli for approval\.requested, approval\.decided\./,
  );
  t.match(added.stderr, /shown once/);
  id = (await gw.db`select id from notification_subscriptions`)[0]!.id as string;
  rx.secret('/cli', secret);

  const list = await ctl(['subscriptions', 'list']);
  t.equal(list.code, 0, list.stderr);
  t.match(list.stdout, new RegExp(`${id}\\s+standard\\s+http://127\\.0\\.0\\.1:\\d+/cli\\s+approval\\.requested,approval\\.decided`));
  t.notOk(list.stdout.includes(secret.slice(6)), 'never the secret');
  const json = await ctl(['subscriptions', 'list', '--json']);
  t.same(json.json, (await gw.api('GET', '/api/v1/notifications/subscriptions')).body, '--json is the API answer');

  const test = await ctl(['subscriptions', 'test', id]);
  t.equal(test.code, 0, test.stderr);
  t.match(test.stdout, new RegExp(`^Queued test event msg_\\w+ for subscription ${id}\\.`, 'm'));
  t.ok(await eventually(() => rx.received('/cli').length === 1));
  t.ok(rx.received('/cli')[0]!.verified);
});

t.test('deliveries: the log, filtered', async (t) => {
  t.ok(await eventually(async () => (await gw.db`select 1 from notification_deliveries where status = 'delivered'`).length === 1));
  const log = await ctl(['deliveries', '--subscription', id]);
  t.equal(log.code, 0, log.stderr);
  t.match(log.stdout, /^ID\s+SUBSCRIPTION\s+TYPE\s+STATUS\s+ATTEMPTS/);
  t.match(log.stdout, new RegExp(`msg_\\w+\\s+${id}\\s+test\\s+delivered\\s+1\\s+HTTP 204`));
  const none = await ctl(['deliveries', '--status', 'dead']);
  t.equal(none.code, 0);
  t.match(none.stdout, /^No deliveries\.$/m);
  const json = await ctl(['deliveries', '--json']);
  t.match(json.json, { deliveries: [{ subscription_id: id, type: 'test', status: 'delivered' }], next_cursor: null });
});

t.test('operator mistakes exit 2 naming the flag, daemon refusals exit 1 with its code; nothing written', async (t) => {
  const before = await subscriptions();
  const unknown = await ctl(['subscriptions', 'add', '--url', rx.url('/x'), '--events', 'approval.maybe']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /--events: /);
  const format = await ctl(['subscriptions', 'add', '--url', rx.url('/x'), '--events', 'approval.decided', '--format', 'teams']);
  t.equal(format.code, 2);
  const status = await ctl(['deliveries', '--status', 'lost']);
  t.equal(status.code, 2);
  const forbidden = await ctl(['subscriptions', 'add', '--url', 'http://169.254.169.254/', '--events', 'approval.decided']);
  t.equal(forbidden.code, 1);
  t.match(forbidden.stderr, /^Error: notification_url_forbidden: .+ \(request_id \S+\)$/m);
  t.equal(await subscriptions(), before);
});

t.test('subscriptions remove', async (t) => {
  const removed = await ctl(['subscriptions', 'remove', id]);
  t.equal(removed.code, 0, removed.stderr);
  t.match(removed.stdout, new RegExp(`^Removed subscription ${id}; 0 undelivered event\\(s\\) dropped\\.$`, 'm'));
  const again = await ctl(['subscriptions', 'remove', id]);
  t.equal(again.code, 1);
  t.match(again.stderr, /not_found/);
  t.match((await ctl(['subscriptions', 'list'])).stdout, /^No notification subscriptions\.$/m);
});
