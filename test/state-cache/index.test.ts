// The state cache (daemon/state-cache/) on a real database: the triggers of migration 00015 notify,
// the listener invalidates, a dropped listener bypasses and a reconnect starts empty, a load that
// raced a notification is not kept, and memory is bounded (entries, projects, age).
import { Writable } from 'node:stream';
import postgres from 'postgres';
import t, { type Test } from 'tap';
import { migrate } from '../../daemon/db/migrate.js';
import type { Sql } from '../../daemon/db/connect.js';
import { createLogger } from '../../daemon/log.js';
import { StateCache } from '../../daemon/state-cache/cache.js';
import { mayWriteState } from '../../daemon/state-cache/may-write-state.js';
import { listenForState } from '../../daemon/state-cache/listener.js';
import { adminDatabaseUrl, freshDatabase } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { startTestGateway } from '../helpers/gateway.js';

const quiet = createLogger(
  'error',
  new Writable({
    write(_c, _e, done) {
      done();
    },
  }),
);

async function database(t: Test): Promise<{ url: string; sql: Sql }> {
  const url = await freshDatabase(t);
  const sql = postgres(url, { max: 1, onnotice: () => {} }) as unknown as Sql;
  t.teardown(() => sql.end({ timeout: 1 }));
  await migrate(sql);
  await sql`insert into projects (id, name) values ('p1', 'one'), ('p2', 'two')`;
  await sql`
    insert into mcp_servers (id, project_id, name, name_key, server_url, status)
    values ('s1', 'p1', 'a', 'a', 'http://127.0.0.1:1', 'ACTIVE'), ('s2', 'p2', 'b', 'b', 'http://127.0.0.1:1', 'ACTIVE')`;
  return { url, sql };
}

async function listening(t: Test, url: string, cache: StateCache, instanceId = 'state-test') {
  const listener = listenForState(url, cache, quiet, { instanceId });
  t.teardown(() => listener.close());
  await listener.started;
  t.ok(cache.connected, 'the listener is connected');
  return listener;
}

const statusOf = (sql: Sql, id: string) => async () =>
  (await sql<{ status: string }[]>`select status from mcp_servers where id = ${id}`)[0]!.status;

t.test('before the listener is connected every read goes to the database and nothing is kept', async (t) => {
  const { sql } = await database(t);
  const cache = new StateCache();
  t.equal(await cache.read('p1', 'server', 's1', statusOf(sql, 's1')), 'ACTIVE');
  await sql`update mcp_servers set status = 'BLOCKED' where id = 's1'`;
  t.equal(await cache.read('p1', 'server', 's1', statusOf(sql, 's1')), 'BLOCKED');
  t.match(cache.stats, { bypassed: 2, hits: 0, misses: 0 });
  t.equal(cache.size, 0);
});

t.test('a write by anyone (a raw UPDATE) drops what its table feeds, for its project only', async (t) => {
  const { url, sql } = await database(t);
  const cache = new StateCache();
  await listening(t, url, cache);
  await cache.read('p1', 'server', 's1', statusOf(sql, 's1'));
  await cache.read('p2', 'server', 's2', statusOf(sql, 's2'));
  await cache.read('p1', 'agent', 'a1', async () => 'agent');
  t.equal(await cache.read('p1', 'server', 's1', statusOf(sql, 's1')), 'ACTIVE');
  t.match(cache.stats, { hits: 1, misses: 3 });
  await sql`update mcp_servers set status = 'BLOCKED' where id = 's1'`;
  t.ok(
    await eventually(async () => (await cache.read('p1', 'server', 's1', statusOf(sql, 's1'))) === 'BLOCKED'),
    'the change is read once notified',
  );
  const hits = cache.stats.hits;
  t.equal(await cache.read('p2', 'server', 's2', async () => 'reloaded'), 'ACTIVE', 'another project keeps its entries');
  t.equal(await cache.read('p1', 'agent', 'a1', async () => 'reloaded'), 'agent', 'mcp_servers does not feed agents');
  t.equal(cache.stats.hits, hits + 2);
});

t.test('every cached table notifies with its project; agent activity counters do not', async (t) => {
  const { url, sql } = await database(t);
  const seen: string[] = [];
  const listener = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => listener.end({ timeout: 1 }));
  await listener.listen('gateway_state', (p) => seen.push(p));
  await sql`insert into credentials (id, project_id, kind, name, role, token_prefix, token_hash) values ('c1', 'p1', 'project_key', 'k', 'viewer', 'ggp_', '\\x01')`;
  await sql`update credentials set revoked_at = now() where id = 'c1'`;
  await sql`insert into project_stops (project_id, active) values ('p2', true)`;
  await sql`insert into mcp_tools (id, project_id, server_id, name, input_schema, current_fingerprint, description_hash, risk_level, category, action)
    values ('t1', 'p1', 's1', 'x', '{}', 'f', 'd', 'low', 'c', 'read')`;
  await sql`insert into mcp_policies (id, project_id, mcp_tool_id, action) values ('r1', 'p1', 't1', 'DENY')`;
  await sql`insert into mcp_proxy_sessions (project_id, server_id, session_hash, credential_id) values ('p2', 's2', 'h', 'c1')`;
  await sql`update mcp_tools set current_fingerprint = 'g' where id = 't1'`;
  await sql`delete from mcp_servers where id = 's2'`;
  const expected = [
    { t: 'credentials', p: 'p1' },
    { t: 'credentials', p: 'p1' },
    { t: 'project_stops', p: 'p2' },
    { t: 'mcp_tools', p: 'p1' },
    { t: 'mcp_policies', p: 'p1' },
    { t: 'mcp_proxy_sessions', p: 'p2' },
    { t: 'mcp_tools', p: 'p1' },
  ];
  t.ok(await eventually(() => seen.length >= expected.length + 2), 'notified');
  t.same(
    seen.slice(0, expected.length).map((s) => JSON.parse(s)),
    expected,
  );
  t.same(
    seen
      .slice(expected.length)
      .map((s) => JSON.parse(s))
      .sort((a, b) => a.t.localeCompare(b.t)),
    [
      { t: 'mcp_proxy_sessions', p: 'p2' },
      { t: 'mcp_servers', p: 'p2' },
    ],
    'a server delete notifies for it and its cascaded sessions',
  );
  const before = seen.length;
  await sql`insert into agents (id, project_id, name, protection_profile, capability_model) values ('a1', 'p1', 'n', 'safe', '{}')`;
  await sql`update agents set request_count = request_count + 5, last_seen_at = now(), updated_at = now() where id = 'a1'`;
  await sql`update agents set status = 'SUSPENDED' where id = 'a1'`;
  await sql`update agents set capability_model = '{"x": 1}' where id = 'a1'`;
  await sql`select pg_notify('gateway_state', 'marker')`;
  t.ok(await eventually(() => seen.at(-1) === 'marker'), 'marker seen');
  t.same(
    seen.slice(before, -1).map((s) => JSON.parse(s)),
    [
      { t: 'agents', p: 'p1' },
      { t: 'agents', p: 'p1' },
      { t: 'agents', p: 'p1' },
    ],
    'insert, status and capability model notify; the activity counters do not',
  );
});

t.test("projects notify with their own id and drop only the project entries; this daemon's own write drops them at once", async (t) => {
  const { url, sql } = await database(t);
  const cache = new StateCache();
  await listening(t, url, cache);
  const mode = (id: string) => async () =>
    (await sql<{ mcp_tools_list: string }[]>`select mcp_tools_list from projects where id = ${id}`)[0]!.mcp_tools_list;
  t.equal(await cache.read('p1', 'project', 'mcp_tools_list', mode('p1')), 'admitted', 'the default');
  await cache.read('p2', 'project', 'mcp_tools_list', mode('p2'));
  await cache.read('p1', 'agent', 'a1', async () => 'agent');
  await sql`update projects set mcp_tools_list = 'callable' where id = 'p1'`;
  t.ok(
    await eventually(async () => (await cache.read('p1', 'project', 'mcp_tools_list', mode('p1'))) === 'callable'),
    "another daemon's write is read once notified",
  );
  const hits = cache.stats.hits;
  t.equal(await cache.read('p2', 'project', 'mcp_tools_list', async () => 'reloaded'), 'admitted', 'another project keeps its entry');
  t.equal(await cache.read('p1', 'agent', 'a1', async () => 'reloaded'), 'agent', 'projects do not feed agents');
  t.equal(cache.stats.hits, hits + 2);
  cache.changed('p1', null);
  t.equal(
    await cache.read('p1', 'project', 'mcp_tools_list', async () => 'reloaded'),
    'reloaded',
    'a request of this daemon that may write drops it before it writes',
  );
});

t.test('a load that a notification overtook is returned but not kept', async (t) => {
  const { url, sql } = await database(t);
  const cache = new StateCache();
  await listening(t, url, cache);
  const writer = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => writer.end({ timeout: 1 }));
  const value = await cache.read('p1', 'server', 's1', async () => {
    const old = await statusOf(sql, 's1')();
    const seen = cache.stats.notifications;
    await writer`update mcp_servers set status = 'BLOCKED' where id = 's1'`;
    await eventually(() => cache.stats.notifications > seen);
    return old;
  });
  t.equal(value, 'ACTIVE', 'the caller gets what it loaded');
  t.equal(cache.stats.discarded, 1, 'but it was not kept');
  t.equal(await cache.read('p1', 'server', 's1', statusOf(sql, 's1')), 'BLOCKED', 'the next read loads again');
  t.equal(cache.stats.misses, 2);
});

t.test('a dropped listener bypasses the cache; its reconnect drops everything', async (t) => {
  const { url, sql } = await database(t);
  const cache = new StateCache();
  await listening(t, url, cache, 'state-drop');
  await cache.read('p1', 'server', 's1', statusOf(sql, 's1'));
  await cache.readCredential('h1', async () => ({ projectId: 'p1', value: 'principal' }));
  t.equal(cache.size, 2);
  const name = new URL(url).pathname.slice(1);
  const admin = postgres(adminDatabaseUrl(), { max: 1, onnotice: () => {} });
  t.teardown(async () => {
    await admin.unsafe(`alter database ${name} allow_connections true`);
    await admin.end({ timeout: 1 });
  });
  // New connections are refused while the listener is cut, so the write below is one it misses.
  await admin.unsafe(`alter database ${name} allow_connections false`);
  await admin`select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'gatewayd:state-drop:state'`;
  t.ok(await eventually(() => !cache.connected), 'the cache knows the listener is gone');
  t.equal(cache.size, 0, 'and dropped what it held');
  await sql`update mcp_servers set status = 'BLOCKED' where id = 's1'`;
  const bypassed = cache.stats.bypassed;
  t.equal(await cache.read('p1', 'server', 's1', statusOf(sql, 's1')), 'BLOCKED', 'read from the database');
  t.equal(await cache.read('p1', 'server', 's1', async () => 'not kept'), 'not kept', 'and not kept while disconnected');
  t.equal(cache.stats.bypassed, bypassed + 2);
  await admin.unsafe(`alter database ${name} allow_connections true`);
  t.ok(await eventually(() => cache.connected), 'the listener reconnects on its own');
  t.equal(cache.size, 0, 'starting empty');
  t.equal(await cache.read('p1', 'server', 's1', statusOf(sql, 's1')), 'BLOCKED');
  t.equal(await cache.read('p1', 'server', 's1', async () => 'stale'), 'BLOCKED', 'and caches again');
});

t.test('bounded: entries per project, projects and credentials least recently used out; entries expire', async (t) => {
  let now = 0;
  const cache = new StateCache({ maxEntriesPerProject: 2, maxProjects: 2, maxCredentials: 1, maxAgeMs: 60_000 }, () => now);
  cache.listenerUp();
  const loads: string[] = [];
  const read = (p: string, k: string) =>
    cache.read(p, 'tool', k, async () => {
      loads.push(`${p}/${k}`);
      return k;
    });
  await read('p1', 'a');
  await read('p1', 'b');
  await read('p1', 'a');
  await read('p1', 'c');
  await read('p1', 'a');
  await read('p1', 'b');
  t.same(loads, ['p1/a', 'p1/b', 'p1/c', 'p1/b'], 'b, least recently used, went when c came');
  await read('p2', 'x');
  await read('p3', 'y');
  await read('p1', 'a');
  t.same(loads.slice(4), ['p2/x', 'p3/y', 'p1/a'], 'p1, least recently used, went when p3 came');
  const cred = (h: string) =>
    cache.readCredential(h, async () => {
      loads.push(h);
      return { projectId: 'p1', value: h };
    });
  await cred('h1');
  await cred('h2');
  await cred('h1');
  t.same(loads.slice(7), ['h1', 'h2', 'h1'], 'one credential kept');
  t.equal(await cache.readCredential('h9', async () => null), null);
  now += 59_999;
  await read('p1', 'a');
  t.equal(loads.length, 10, 'fresh within the max age');
  now += 1;
  await read('p1', 'a');
  t.same(loads.slice(10), ['p1/a'], 'expired at the max age');
});

t.test("an unreadable notification drops everything; this daemon's own writes drop at once", async (t) => {
  const cache = new StateCache();
  cache.listenerUp();
  await cache.read('p1', 'agent', 'a', async () => 1);
  await cache.readCredential('h', async () => ({ projectId: 'p1', value: 1 }));
  cache.notified('{"t":"mcp_servers"}');
  t.equal(cache.size, 0, 'no project: everything goes');
  await cache.read('p1', 'agent', 'a', async () => 1);
  cache.notified('{"t":"some_new_table","p":"p1"}');
  t.equal(cache.size, 0, 'unknown table: everything goes');
  await cache.read('p1', 'agent', 'a', async () => 1);
  await cache.readCredential('h', async () => ({ projectId: 'p1', value: 1 }));
  await cache.read('p2', 'agent', 'a', async () => 1);
  cache.changed('p1', null);
  t.equal(cache.size, 1, 'a request that may write drops all of its project');
});

t.test('which requests may write cached state: the route table says, by its writesOnlyTraces flag', async (t) => {
  const gw = await startTestGateway(t);
  const routes = gw.gateway.http.routes;
  const route = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)!;
  t.same(
    routes
      .filter((r) => r.writesOnlyTraces)
      .map((r) => `${r.method} ${r.path}`)
      .sort(),
    [
      'DELETE /api/v1/mcp/proxy/:server_id',
      'GET /api/v1/mcp/proxy/:server_id',
      'POST /api/v1/mcp/proxy/:server_id',
      'POST /api/v1/verify',
      'POST /api/v1/webhooks/ingest',
    ],
    'the governance routes and webhook ingest write only traces',
  );
  t.ok(mayWriteState('DELETE', route('DELETE', '/api/v1/keys/:id')));
  t.ok(mayWriteState('POST', route('POST', '/api/v1/agents/:id/suspend')));
  t.notOk(mayWriteState('GET', route('GET', '/api/v1/keys')));
  t.notOk(mayWriteState('POST', route('POST', '/api/v1/mcp/proxy/:server_id')), 'the proxy is the hot path: it writes traces only');
  t.notOk(mayWriteState('POST', route('POST', '/api/v1/verify')));
  t.ok(mayWriteState('POST', route('POST', '/api/v1/verify/policies')));
});
