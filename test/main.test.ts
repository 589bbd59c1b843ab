import t, { type Test } from 'tap';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { freshDatabase } from './helpers/db.js';
import { spawnDaemon } from './helpers/spawn-daemon.js';

async function tempDir(t: Test): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-main-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

// biome-ignore lint/suspicious/noExplicitAny: response bodies of many shapes, read field by field in the assertions
async function call(url: string, token: string, method = 'GET', body?: unknown): Promise<{ status: number; body: any }> {
  const res = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

t.test('a wrong configuration value stops the daemon with one line naming the variable', async (t) => {
  const d = spawnDaemon({ GATEWAY_LISTEN: 'nowhere', GATEWAY_DATA_DIR: await tempDir(t) });
  const { code } = await d.exit;
  t.equal(code, 78);
  t.equal(d.stderr().trim().split('\n').length, 1);
  t.match(d.stderr(), /GATEWAY_LISTEN/);
});

t.test('a changed, already-applied migration stops start-up with a clear error', async (t) => {
  const url = await freshDatabase(t);
  const first = spawnDaemon({ DATABASE_URL: url, GATEWAY_DATA_DIR: await tempDir(t) });
  await first.url;
  first.child.kill('SIGTERM');
  t.equal((await first.exit).code, 0);
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await sql`update schema_migrations set checksum = 'edited' where name = '00001_init.sql'`;
  await sql.end();
  const second = spawnDaemon({ DATABASE_URL: url, GATEWAY_DATA_DIR: await tempDir(t) });
  t.equal((await second.exit).code, 1);
  t.match(second.stderr(), /00001_init\.sql was changed after it was applied/);
});

t.test('SIGTERM: stop accepting, finish the request in flight, exit 0', async (t) => {
  const dataDir = await tempDir(t);
  const d = spawnDaemon({ DATABASE_URL: await freshDatabase(t), GATEWAY_DATA_DIR: dataDir, GATEWAY_SHUTDOWN_TIMEOUT_SECONDS: '10' });
  const url = await d.url;
  const token = (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
  const body = JSON.stringify({ name: 'during shutdown', role: 'viewer' });
  const inFlight = new Promise<number>((resolve, reject) => {
    const req = http.request(
      url + '/api/v1/keys',
      {
        method: 'POST',
        agent: false,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.write(body.slice(0, 3));
    setTimeout(() => {
      d.child.kill('SIGTERM');
      setTimeout(async () => {
        const refused = await fetch(url + '/healthz').then(
          () => false,
          () => true,
        );
        t.ok(refused, 'new connections are refused once shutdown began');
        req.end(body.slice(3));
      }, 300);
    }, 300);
  });
  t.equal(await inFlight, 201, 'the request in flight completed');
  const { code } = await d.exit;
  t.equal(code, 0);
});

t.test('embedded PostgreSQL by default: data kept across restarts, stopped on exit', async (t) => {
  const dataDir = await tempDir(t);
  const first = spawnDaemon({ GATEWAY_DATA_DIR: dataDir });
  const url1 = await first.url;
  const token = (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
  const created = await call(url1 + '/api/v1/keys', token, 'POST', { name: 'kept', role: 'viewer' });
  t.equal(created.status, 201);
  const password = await fs.stat(path.join(dataDir, 'pg-password'));
  t.equal(password.mode & 0o777, 0o600, 'the database password file is 0600');
  first.child.kill('SIGTERM');
  t.equal((await first.exit).code, 0);
  const running = () =>
    execFileSync('ps', ['-eo', 'args'])
      .toString()
      .split('\n')
      .filter((l) => l.includes(path.join(dataDir, 'pg')) && !l.includes('ps -eo'));
  t.same(running(), [], 'the embedded server stopped with the daemon');

  const second = spawnDaemon({ GATEWAY_DATA_DIR: dataDir });
  const url2 = await second.url;
  t.equal((await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim(), token, 'admin.token left alone');
  t.equal((await call(url2 + '/api/v1/project', created.body.key)).status, 200, 'the key created before the restart works');
  second.child.kill('SIGTERM');
  t.equal((await second.exit).code, 0);
});
