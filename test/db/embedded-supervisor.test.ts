import t, { type Test } from 'tap';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import postgres from 'postgres';
import { serverProcesses } from '../../daemon/db/embedded-lock.js';
import { startEmbeddedPostgres } from '../../daemon/db/embedded.js';
import { createLogger } from '../../daemon/log.js';
import { abandonDaemon, postmasterPid } from '../helpers/embedded-daemon.js';
import { spawnDaemon, type Spawned } from '../helpers/spawn-daemon.js';

async function tempDir(t: Test): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-embedded-'));
  await fs.chmod(dir, 0o755); // as root the server runs as user postgres and must reach the data dir
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

async function until<T>(what: string, probe: () => Promise<T | null | false>, ms = 90_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => null);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Answer {
  status: number;
  persisted: string | null;
  traceId: string | null;
}

async function verifyOnce(url: string, token: string): Promise<Answer> {
  const res = await fetch(url + '/api/v1/verify', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ prompt: 'Summarise the quarterly report in three bullet points.' }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json().catch(() => null)) as { trace_id?: string } | null;
  return { status: res.status, persisted: res.headers.get('x-gateway-trace-persisted'), traceId: body?.trace_id ?? null };
}

/** Verify requests, two at a time, until stop() is called; every answer kept. */
function verifyTraffic(url: string, token: string): { stop(): Promise<Answer[]> } {
  const answers: Answer[] = [];
  let running = true;
  const worker = async () => {
    while (running) {
      answers.push(await verifyOnce(url, token).catch(() => ({ status: 0, persisted: null, traceId: null })));
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const workers = [worker(), worker()];
  return {
    async stop() {
      running = false;
      await Promise.all(workers);
      return answers;
    },
  };
}

async function stopDaemon(t: Test, d: Spawned, dataDir: string): Promise<void> {
  d.child.kill('SIGTERM');
  t.equal((await d.exit).code, 0, 'gatewayd exits 0 on SIGTERM');
  t.same(await serverProcesses(path.join(dataDir, 'pg')), [], 'no PostgreSQL process left in the data dir');
}

t.test(
  'kill -9 of the embedded postmaster under verify traffic: gatewayd restarts it, verify keeps answering (db or dlq), every acknowledged trace in an intact chain',
  async (t) => {
    const dataDir = await tempDir(t);
    const d = spawnDaemon({ GATEWAY_DATA_DIR: dataDir });
    t.teardown(() => abandonDaemon(d, dataDir));
    const url = await d.url;
    const token = (await fs.readFile(path.join(dataDir, 'admin.token'), 'utf8')).trim();
    t.equal((await verifyOnce(url, token)).status, 200, 'verify answers before the kill');

    const traffic = verifyTraffic(url, token);
    await new Promise((r) => setTimeout(r, 300));
    const killed = await postmasterPid(dataDir);
    process.kill(killed, 'SIGKILL');
    await until('a new postmaster', async () => {
      const pid = await postmasterPid(dataDir);
      return pid !== killed && alive(pid) && pid;
    });
    await until('/healthz ok', async () => ((await (await fetch(url + '/healthz')).json()) as { status: string }).status === 'ok');
    await new Promise((r) => setTimeout(r, 300));
    const answers = await traffic.stop();

    const seen = new Map<string, number>();
    for (const a of answers) seen.set(`${a.status} ${a.persisted}`, (seen.get(`${a.status} ${a.persisted}`) ?? 0) + 1);
    t.comment(`verify answers around the outage: ${JSON.stringify(Object.fromEntries(seen))}`);
    // Verify decides from memory while the database is away (degraded mode): every answer is an
    // acknowledged decision, its trace in the ledger or the dead-letter queue.
    t.same(
      answers.filter((a) => a.status !== 200 || (a.persisted !== 'db' && a.persisted !== 'dlq') || !a.traceId),
      [],
      'every answer is 200 with its trace persisted to db or dlq: no 5xx, no dropped connection',
    );
    t.ok(
      answers.some((a) => a.persisted === 'dlq'),
      'some decisions were made during the outage (dead-letter queue)',
    );
    const acknowledged = answers.filter((a) => a.status === 200);
    for (const a of acknowledged) {
      const found = await fetch(`${url}/api/v1/traces?id=${a.traceId}`, { headers: { authorization: `Bearer ${token}` } });
      const rows = ((await found.json()) as { traces: { id: string }[] }).traces;
      if (rows.length !== 1) t.fail(`acknowledged trace ${a.traceId} (${a.persisted}) is not in the ledger`);
    }
    const chain = (await (await fetch(url + '/api/v1/ledger/verify-chain', { headers: { authorization: `Bearer ${token}` } })).json()) as {
      intact: boolean;
    };
    t.equal(chain.intact, true, 'the chain verifies');

    const project = await fetch(url + '/api/v1/project', { headers: { authorization: `Bearer ${token}` } });
    t.equal(project.status, 200, 'a keyed request works again');
    t.match(d.stdout(), /embedded PostgreSQL exited unexpectedly \(SIGKILL\); restarting it/);
    t.match(d.stdout(), /"level":40[^\n]*embedded PostgreSQL restarted/, 'the restart is logged at warn');
    t.match(d.stdout(), /state cache listener disconnected/, 'the state cache noticed the outage');
    await until('the state cache listening again', async () =>
      /^gateway_state_cache_listening 1$/m.test(await (await fetch(url + '/metrics')).text()),
    );

    // And again: supervision holds after a restart.
    const second = await postmasterPid(dataDir);
    process.kill(second, 'SIGKILL');
    await until('a third postmaster', async () => {
      const pid = await postmasterPid(dataDir);
      return pid !== second && alive(pid) && pid;
    });
    await until('/healthz ok again', async () => ((await (await fetch(url + '/healthz')).json()) as { status: string }).status === 'ok');
    t.equal((await verifyOnce(url, token)).status, 200, 'verify answers after the second restart');
    await stopDaemon(t, d, dataDir);
  },
);

t.test(
  "a restart waits for the dead postmaster's children, retries with a delay while one holds the data dir, says why, then recovers",
  async (t) => {
    const dataDir = await tempDir(t);
    const lines: string[] = [];
    const log = createLogger(
      'info',
      new Writable({
        write(chunk, _enc, done) {
          lines.push(String(chunk));
          done();
        },
      }),
    );
    const db = await startEmbeddedPostgres(dataDir, log, { firstDelayMs: 100, maxDelayMs: 400, childrenWaitMs: 300 });
    t.teardown(() => db.stop());
    const sql = postgres(db.url, { max: 1, onnotice: () => {} });
    t.teardown(() => sql.end({ timeout: 1 }));
    t.equal((await sql`select 1 as one`)[0]!.one, 1);

    const databaseDir = path.join(dataDir, 'pg');
    const killed = db.server.pid!;
    const child = (await serverProcesses(databaseDir)).find((pid) => pid !== killed)!;
    t.ok(child, 'the postmaster has children');
    let held = true;
    t.teardown(() => {
      if (held) process.kill(child, 'SIGKILL');
    }); // never leave it stopped
    process.kill(child, 'SIGSTOP'); // a child that cannot exit keeps the old shared memory in use
    process.kill(killed, 'SIGKILL');
    await until('a refused restart', async () =>
      /embedded PostgreSQL did not restart: exited early.*?; retrying in \d+ ms/.test(lines.join('')),
    );
    t.match(lines.join(''), /processes of the dead embedded PostgreSQL still run in its data dir/);
    t.match(
      lines.join(''),
      /"level":40[^\n]*did not restart: exited early \(code 1\): FATAL: pre-existing shared memory block/,
      "the reason is PostgreSQL's own, at warn",
    );
    process.kill(child, 'SIGKILL');
    held = false;
    await until('restarted', async () => /embedded PostgreSQL restarted/.test(lines.join('')));
    t.not(db.server.pid, killed);
    t.equal(db.server.restarts, 1);
    t.equal(await until('a query', async () => (await sql`select 2 as two`)[0]!.two), 2, 'the same pool reconnects');
    await db.stop();
    t.same(await serverProcesses(databaseDir), [], 'stopped: nothing left in the data dir');
  },
);
