import t from 'tap';
import { startTestGateway } from '../../helpers/gateway.js';

t.test('bootstrap: project default and an Admin user token for user admin, file 0600', async (t) => {
  const gw = await startTestGateway(t);
  const fs = await import('node:fs/promises');
  const stat = await fs.stat(`${gw.dataDir}/admin.token`);
  t.equal(stat.mode & 0o777, 0o600);
  t.match(gw.adminToken, /^ggu_[A-Za-z0-9_-]{43}$/);
  const [row] = await gw.db`select project_id, kind, role, user_id from credentials`;
  t.same({ ...row }, { project_id: 'default', kind: 'user_token', role: 'admin', user_id: 'admin' });
  t.ok(
    gw.logLines.every((l) => !l.includes(gw.adminToken)),
    'the token is never logged',
  );
});

t.test('keys: create, list without secrets, stored only as a hash, revoke at once', async (t) => {
  const gw = await startTestGateway(t);
  const created = await gw.api('POST', '/api/v1/keys', { body: { name: 'ci', role: 'EDITOR' } });
  t.equal(created.status, 201);
  t.same(Object.keys(created.body).sort(), ['id', 'key', 'kind', 'name', 'role', 'user_id']);
  t.equal(created.body.role, 'editor', 'roles are case-insensitive in, lower-case out');
  t.equal(created.body.user_id, null);
  t.match(created.body.key, /^ggp_/);
  const user = await gw.api('POST', '/api/v1/keys', { body: { name: 'alice', role: 'viewer', user_id: 'alice' } });
  t.match(user.body.key, /^ggu_/);
  t.equal(user.body.user_id, 'alice');

  const list = await gw.api('GET', '/api/v1/keys');
  t.equal(list.status, 200);
  t.equal(list.body.keys.length, 3);
  t.notMatch(list.text, new RegExp(created.body.key.slice(12)), 'no secret in the list');
  t.notOk('token_hash' in list.body.keys[0]);
  const dump = JSON.stringify(await gw.db`select * from credentials`);
  t.notMatch(dump, new RegExp(created.body.key.slice(12)), 'the token itself is not stored');

  t.equal((await gw.api('GET', '/api/v1/project', { token: created.body.key })).status, 200);
  const revoked = await gw.api('DELETE', `/api/v1/keys/${created.body.id}`);
  t.equal(revoked.status, 200);
  t.equal((await gw.api('GET', '/api/v1/project', { token: created.body.key })).status, 401);
  t.equal((await gw.api('DELETE', '/api/v1/keys/nope')).status, 404);
});

t.test('roles: Viewer < Editor < Admin, 403 forbidden below the route role, writing nothing', async (t) => {
  const gw = await startTestGateway(t);
  const viewer = await gw.key('viewer');
  const editor = await gw.key('editor');
  const projectAdmin = await gw.key('admin');
  t.equal((await gw.api('GET', '/api/v1/project', { token: viewer })).status, 200);
  const denied = await gw.api('POST', '/api/v1/keys', { token: editor, body: { name: 'x', role: 'admin' } });
  t.equal(denied.status, 403);
  t.equal(denied.body.error.code, 'forbidden');
  t.equal((await gw.api('PATCH', '/api/v1/project', { token: viewer, body: { name: 'x' } })).status, 403);
  t.equal((await gw.api('PATCH', '/api/v1/project', { token: projectAdmin, body: { name: 'renamed' } })).status, 200);
  const [{ n }] = await gw.db`select count(*)::int as n from credentials`;
  t.equal(n, 4, 'the refused create wrote nothing');
});

t.test('extension keys: created by Admin, listed, refused on other routes, revocable', async (t) => {
  const gw = await startTestGateway(t);
  const ext = await gw.api('POST', '/api/v1/extensions', { body: { name: 'siem' } });
  t.equal(ext.status, 201);
  t.same(Object.keys(ext.body).sort(), ['api_key', 'id', 'name']);
  t.match(ext.body.api_key, /^gge_/);
  const onOther = await gw.api('GET', '/api/v1/project', { token: ext.body.api_key });
  t.equal(onOther.status, 403);
  const list = await gw.api('GET', '/api/v1/extensions');
  t.equal(list.body.extensions.length, 1);
  t.notMatch(list.text, new RegExp(ext.body.api_key.slice(12)));
  t.equal((await gw.api('DELETE', `/api/v1/extensions/${ext.body.id}`)).status, 200);
  t.equal((await gw.api('GET', '/api/v1/project', { token: ext.body.api_key })).status, 401);
});

t.test('every key create and revoke is an admin-log entry on a verifiable chain', async (t) => {
  const gw = await startTestGateway(t);
  const created = await gw.api('POST', '/api/v1/keys', { body: { name: 'ci', role: 'viewer' } });
  await gw.api('DELETE', `/api/v1/keys/${created.body.id}`);
  const log = await gw.api('GET', '/api/v1/admin-log');
  t.same(
    log.body.entries.map((e: { action: string }) => e.action),
    ['project.bootstrap', 'project_key.create', 'project_key.revoke'],
  );
  t.equal(log.body.entries[1].actor_id, 'admin');
  const ocsf = await gw.api('GET', '/api/v1/admin-log?format=ocsf');
  t.equal(ocsf.body.entries[2].class_uid, 3004);
  t.equal(ocsf.body.entries[2].type_uid, 300404);
  t.equal(ocsf.body.entries[2].metadata.sequence, 3);
  const chain = await gw.api('GET', '/api/v1/ledger/verify-chain?stream=admin');
  t.same({ intact: chain.body.intact, checked: chain.body.checked }, { intact: true, checked: 3 });
});

t.test('GET /me names the credential behind the token', async (t) => {
  const gw = await startTestGateway(t);
  const me = await gw.api('GET', '/api/v1/me');
  t.match(me.body, { project_id: 'default', kind: 'user_token', role: 'admin', user_id: 'admin' });
  const pkg = JSON.parse(await (await import('node:fs/promises')).readFile('package.json', 'utf8')) as { version: string };
  t.equal(me.body.gateway_version, pkg.version, "the gateway's version, from package.json");
  const viewer = await gw.api('GET', '/api/v1/me', { token: await gw.key('viewer') });
  t.match(viewer.body, { kind: 'project_key', role: 'viewer', user_id: null });
});

t.test('the last active Admin user token cannot be revoked; nothing changes', async (t) => {
  const gw = await startTestGateway(t);
  const me = (await gw.api('GET', '/api/v1/me')).body;
  const refused = await gw.api('DELETE', `/api/v1/keys/${me.credential_id}`);
  t.equal(refused.status, 409);
  t.equal(refused.body.error.code, 'last_admin_credential');
  const [{ revoked }] = await gw.db`select count(*)::int as revoked from credentials where revoked_at is not null`;
  t.equal(revoked, 0);
  const log = await gw.api('GET', '/api/v1/admin-log');
  t.equal(log.body.entries.length, 1, 'no admin-log entry for the refusal');
  const second = await gw.key('admin', 'bob');
  t.equal(
    (await gw.api('DELETE', `/api/v1/keys/${me.credential_id}`, { token: second })).status,
    200,
    'with a second Admin user it can go',
  );
  t.equal((await gw.api('GET', '/api/v1/project')).status, 401);
});
