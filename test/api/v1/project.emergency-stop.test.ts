import t from 'tap';
import http from 'node:http';
import { onStopSet } from '../../../daemon/project/emergency-stop.js';
import { startTestGateway } from '../../helpers/gateway.js';

// The hook that the approvals work fills: it runs inside the set transaction.
const hookCalls: string[] = [];
onStopSet(async (tx, projectId) => {
  hookCalls.push(projectId);
  const [{ now }] = await tx`select now()::text as now`;
  return { approvals_ended: 0, hook_saw_transaction: Boolean(now) };
});

t.test('set, read, lift, with the 409 codes; the stop is in the admin log', async (t) => {
  const gw = await startTestGateway(t);
  const viewer = await gw.key('viewer', 'vera');
  const initial = await gw.api('GET', '/api/v1/project/emergency-stop', { token: viewer });
  t.same(initial.body, { active: false, reason: null, activated_at: null, activated_by: null });
  t.equal((await gw.api('POST', '/api/v1/project/emergency-stop', { token: viewer, body: {} })).status, 403, 'Viewer cannot set');
  const set = await gw.api('POST', '/api/v1/project/emergency-stop', { body: { reason: 'incident 42' } });
  t.equal(set.status, 200);
  t.equal(set.body.active, true);
  t.equal(set.body.reason, 'incident 42');
  t.equal(set.body.activated_by, 'admin');
  t.same(hookCalls, ['default'], 'the stop-set hook ran');
  const again = await gw.api('POST', '/api/v1/project/emergency-stop', {});
  t.equal(again.status, 409);
  t.equal(again.body.error.code, 'project_emergency_stop_already_active');
  const read = await gw.api('GET', '/api/v1/project/emergency-stop', { token: viewer });
  t.equal(read.body.active, true);
  t.equal((await gw.api('POST', '/api/v1/project/emergency-stop/lift', { token: viewer })).status, 403, 'Viewer cannot lift');
  const lift = await gw.api('POST', '/api/v1/project/emergency-stop/lift', { body: { reason: 'resolved' } });
  t.equal(lift.status, 200);
  t.equal(lift.body.active, false);
  const liftAgain = await gw.api('POST', '/api/v1/project/emergency-stop/lift');
  t.equal(liftAgain.status, 409);
  t.equal(liftAgain.body.error.code, 'project_emergency_stop_not_active');
  const log = await gw.api('GET', '/api/v1/admin-log');
  const actions = log.body.entries.map((e: { action: string }) => e.action);
  t.same(actions.slice(-2), ['project.emergency_stop.activate', 'project.emergency_stop.lift']);
  t.equal(log.body.entries.at(-2).details.hook_saw_transaction, true);
});

t.test('while active: project keys refused everywhere, user tokens keep reads and recovery', async (t) => {
  const gw = await startTestGateway(t);
  const projectKey = await gw.key('admin');
  const userViewer = await gw.key('viewer', 'vera');
  const ext = (await gw.api('POST', '/api/v1/extensions', { body: { name: 'e' } })).body.api_key;
  t.equal((await gw.api('POST', '/api/v1/project/emergency-stop', { token: projectKey })).status, 200, 'an Admin project key may set it');
  for (const [method, path] of [
    ['GET', '/api/v1/project'],
    ['GET', '/api/v1/project/emergency-stop'],
    ['POST', '/api/v1/keys'],
    ['POST', '/api/v1/project/emergency-stop/lift'],
    ['GET', '/api/v1/no-such-route-is-fine'],
  ] as const) {
    const res = await gw.api(method, path, { token: projectKey, body: method === 'POST' ? { name: 'x', role: 'viewer' } : undefined });
    if (path.includes('no-such')) {
      t.equal(res.status, 404);
      continue;
    }
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(res.body.error.code, 'project_emergency_stopped');
  }
  t.equal((await gw.api('GET', '/api/v1/project', { token: ext })).body.error.code, 'project_emergency_stopped');
  t.equal((await gw.api('GET', '/api/v1/project', { token: userViewer })).status, 200, 'user reads keep working');
  const userWrite = await gw.api('POST', '/api/v1/keys', { body: { name: 'x', role: 'viewer' } });
  t.equal(userWrite.status, 403);
  t.equal(userWrite.body.error.code, 'project_emergency_stopped', 'other writes are refused even for an Admin user');
  t.equal((await gw.api('PATCH', '/api/v1/project', { body: { name: 'x' } })).body.error.code, 'project_emergency_stopped');
  const [{ n }] = await gw.db`select count(*)::int as n from credentials`;
  t.equal(n, 4, 'refused writes wrote nothing');
  t.equal((await gw.api('GET', '/healthz', { token: null })).status, 200);
  t.equal((await gw.api('POST', '/api/v1/project/emergency-stop/lift')).status, 200, 'the Admin user lifts');
  t.equal((await gw.api('GET', '/api/v1/project', { token: projectKey })).status, 200, 'the project key works again');
});

t.test('a second daemon on the same database applies a set and a lift once their notification reaches it', async (t) => {
  const first = await startTestGateway(t);
  const second = await startTestGateway(t, { databaseUrl: first.databaseUrl });
  const key = await first.key('viewer');
  t.equal((await second.api('GET', '/api/v1/project', { token: key })).status, 200, 'the key is cached on daemon 2');
  await first.api('POST', '/api/v1/project/emergency-stop');
  t.equal(
    (await first.api('GET', '/api/v1/project', { token: key })).body.error.code,
    'project_emergency_stopped',
    'at once on the daemon that set it',
  );
  await second.settled(); // every change committed before this marker has reached daemon 2
  t.equal((await second.api('GET', '/api/v1/project', { token: key })).body.error.code, 'project_emergency_stopped');
  await first.api('POST', '/api/v1/project/emergency-stop/lift');
  t.equal((await first.api('GET', '/api/v1/project', { token: key })).status, 200, 'at once on the daemon that lifted it');
  await second.settled();
  t.equal((await second.api('GET', '/api/v1/project', { token: key })).status, 200);
});

t.test('a request already in flight when the stop is set completes', async (t) => {
  const gw = await startTestGateway(t);
  const key = await gw.key('admin');
  const url = new URL(gw.url + '/api/v1/keys');
  const body = JSON.stringify({ name: 'slow', role: 'viewer' });
  const result = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 5));
    // The request is authenticated once its headers arrive; the stop comes while its body is still on the way.
    setTimeout(async () => {
      await gw.api('POST', '/api/v1/project/emergency-stop');
      req.end(body.slice(5));
    }, 200);
  });
  const done = await result;
  t.equal(done.status, 201, done.text);
  t.equal((await gw.api('GET', '/api/v1/project', { token: key })).status, 403, 'the next request is refused');
});
