import t from 'tap';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { connect } from '../../daemon/db/connect.js';
import postgres from 'postgres';
import { migrate, MigrationError, readMigrations } from '../../daemon/db/migrate.js';
import { freshDatabase } from '../helpers/db.js';
import { startTestGateway } from '../helpers/gateway.js';
import { spawnDaemon } from '../helpers/spawn-daemon.js';

async function tempMigrations(files: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-mig-'));
  for (const [name, text] of Object.entries(files)) await fs.writeFile(path.join(dir, name), text);
  return dir + '/';
}

t.test('applies files in order, once, recording a checksum', async (t) => {
  const sql = connect(await freshDatabase(t), { max: 2, instanceId: 't' });
  t.teardown(() => sql.end({ timeout: 1 }));
  const dir = await tempMigrations({
    '00002_b.sql': 'insert into t (v) values (2);',
    '00001_a.sql': 'create table t (v int);',
    'README.txt': 'not a migration',
  });
  t.same(await migrate(sql, await readMigrations(dir)), ['00001_a.sql', '00002_b.sql']);
  t.same(await migrate(sql, await readMigrations(dir)), [], 'second run applies nothing');
  const rows = await sql<{ name: string; checksum: string }[]>`select name, checksum from schema_migrations order by name`;
  t.equal(rows.length, 2);
  t.match(rows[0]!.checksum, /^[0-9a-f]{64}$/);
  t.same(
    (await sql`select v from t`).map((r) => r.v),
    [2],
  );
});

t.test('a changed, already-applied file stops start-up with a clear error', async (t) => {
  const sql = connect(await freshDatabase(t), { max: 2, instanceId: 't' });
  t.teardown(() => sql.end({ timeout: 1 }));
  const dir = await tempMigrations({ '00001_a.sql': 'create table t (v int);' });
  await migrate(sql, await readMigrations(dir));
  await fs.writeFile(dir + '00001_a.sql', 'create table t (v bigint);');
  const err = await migrate(sql, await readMigrations(dir)).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, MigrationError);
  t.match((err as Error).message, /00001_a\.sql was changed after it was applied/);
});

t.test('a failing migration leaves nothing applied', async (t) => {
  const sql = connect(await freshDatabase(t), { max: 2, instanceId: 't' });
  t.teardown(() => sql.end({ timeout: 1 }));
  const dir = await tempMigrations({ '00001_a.sql': 'create table t (v int);', '00002_b.sql': 'this is not sql;' });
  await t.rejects(migrate(sql, await readMigrations(dir)));
  const [{ n }] = await sql`select count(*)::int as n from pg_tables where tablename in ('t', 'schema_migrations')`;
  t.equal(n, 0, 'the whole run rolled back');
});

t.test('a file numbered below the highest applied one is refused, naming both, and nothing of it is applied', async (t) => {
  const sql = connect(await freshDatabase(t), { max: 2, instanceId: 't' });
  t.teardown(() => sql.end({ timeout: 1 }));
  const dir = await tempMigrations({ '00020_a.sql': 'create table t (v int);', '00030_c.sql': 'insert into t (v) values (30);' });
  t.same(await migrate(sql, await readMigrations(dir)), ['00020_a.sql', '00030_c.sql']);
  await fs.writeFile(dir + '00025_b.sql', 'insert into t (v) values (25);');
  await fs.writeFile(dir + '00040_d.sql', 'insert into t (v) values (40);');
  const err = await migrate(sql, await readMigrations(dir)).then(
    () => null,
    (e: unknown) => e,
  );
  t.type(err, MigrationError);
  t.match((err as Error).message, /00025_b\.sql is numbered below 00030_c\.sql, the highest already applied/);
  t.equal((err as Error).message.split('\n').length, 1, 'one line');
  t.same(
    (await sql`select v from t order by v`).map((r) => r.v),
    [30],
    'neither the early file nor the later one ran',
  );
  t.same(
    (await sql`select name from schema_migrations order by name`).map((r) => r.name),
    ['00020_a.sql', '00030_c.sql'],
  );
});

t.test('files of the unordered past (up to 00015) missing from an old database are still applied', async (t) => {
  const sql = connect(await freshDatabase(t), { max: 2, instanceId: 't' });
  t.teardown(() => sql.end({ timeout: 1 }));
  // As a database upgraded before 00005 existed: 00008 applied, then 00005 shipped.
  const dir = await tempMigrations({ '00001_a.sql': 'create table t (v int);', '00008_c.sql': 'insert into t (v) values (8);' });
  await migrate(sql, await readMigrations(dir));
  await fs.writeFile(dir + '00005_b.sql', 'insert into t (v) values (5);');
  await fs.writeFile(dir + '00016_d.sql', 'insert into t (v) values (16);');
  t.same(await migrate(sql, await readMigrations(dir)), ['00005_b.sql', '00016_d.sql']);
});

t.test('gatewayd refuses to start on an out-of-order migration: exit 1, one line naming it', async (t) => {
  const url = await freshDatabase(t);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-mig-daemon-'));
  t.teardown(() => fs.rm(dataDir, { recursive: true, force: true }));
  const files = await readMigrations();
  const last = files.at(-1)!.name;
  const setup = connect(url, { max: 1, instanceId: 'setup' });
  await migrate(setup);
  await setup.end();
  // The real last file pending while a later number (as if from a newer release) is applied.
  const db = postgres(url, { max: 1, onnotice: () => {} });
  t.teardown(() => db.end({ timeout: 1 }));
  await db`delete from schema_migrations where name = ${last}`;
  await db`insert into schema_migrations (name, checksum) values ('99999_newer.sql', 'x')`;
  const d = spawnDaemon({ DATABASE_URL: url, GATEWAY_DATA_DIR: dataDir });
  t.equal((await d.exit).code, 1);
  t.equal(d.stderr().trim().split('\n').length, 1, 'one line on stderr');
  t.match(d.stderr(), new RegExp(`migration ${last.replace('.', '\\.')} is numbered below 99999_newer\\.sql`));
  t.equal((await db`select count(*)::int as n from schema_migrations where name = ${last}`)[0]!.n, 0, 'not applied');
});

t.test('the real migrations apply concurrently from several pools on an empty database', async (t) => {
  const url = await freshDatabase(t);
  const pools = [1, 2, 3].map((i) => connect(url, { max: 2, instanceId: `p${i}` }));
  t.teardown(() => Promise.all(pools.map((p) => p.end({ timeout: 1 }))));
  const results = await Promise.all(pools.map((p) => migrate(p)));
  t.equal(results.filter((r) => r.length > 0).length, 1, 'exactly one applied them');
});

t.test('two daemons started at once on one empty database both come up, with one project and one admin token', async (t) => {
  const url = await freshDatabase(t);
  const [a, b] = await Promise.all([startTestGateway(t, { databaseUrl: url }), startTestGateway(t, { databaseUrl: url })]);
  t.equal((await a.api('GET', '/healthz', { token: null })).status, 200);
  t.equal((await b.api('GET', '/healthz', { token: null })).status, 200);
  const [{ projects, tokens }] =
    await a.db`select (select count(*)::int from projects) as projects, (select count(*)::int from credentials) as tokens`;
  t.same({ projects, tokens }, { projects: 1, tokens: 1 });
  const holder = a.adminToken ? a : b;
  t.ok(Boolean(a.adminToken) !== Boolean(b.adminToken), 'exactly one daemon wrote admin.token');
  t.equal((await holder.api('GET', '/api/v1/project')).status, 200);
});
