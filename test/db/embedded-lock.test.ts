import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { dataDirHolder, serverProcesses } from '../../daemon/db/embedded-lock.js';
import { abandonDaemon, postmasterPid } from '../helpers/embedded-daemon.js';
import { spawnDaemon } from '../helpers/spawn-daemon.js';

async function tempDir(t: Test): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-lock-'));
  await fs.chmod(dir, 0o755); // as root the server runs as user postgres and must reach the data dir
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((r) => child.once('exit', r));
  return child.pid!;
}

const pidFile = (dir: string) => path.join(dir, 'postmaster.pid');

t.test('who holds a data dir: nobody, a dead pid, a live process working in it, a live pid that is someone else', async (t) => {
  const dir = await tempDir(t);
  t.same(await dataDirHolder(dir), { state: 'free' }, 'no postmaster.pid');
  const dead = await deadPid();
  await fs.writeFile(pidFile(dir), `${dead}\n${dir}\n`);
  t.same(await dataDirHolder(dir), { state: 'stale', pid: dead });
  const inside = spawn('sleep', ['60'], { cwd: dir });
  t.teardown(() => inside.kill('SIGKILL'));
  await fs.writeFile(pidFile(dir), `${inside.pid}\n${dir}\n`);
  t.same(await dataDirHolder(dir), { state: 'held', pid: inside.pid });
  t.same(await serverProcesses(dir), [inside.pid], 'found by its working directory');
  await fs.writeFile(pidFile(dir), `${process.pid}\n${dir}\n`);
  t.same(await dataDirHolder(dir), { state: 'reused', pid: process.pid }, "this test's own pid works elsewhere");
  await fs.writeFile(pidFile(dir), 'garbage\n');
  t.same(await dataDirHolder(dir), { state: 'free' });
});

t.test(
  'a second gatewayd on a data dir whose database runs says so in one line and leaves the first alone; a stale pid file is only mentioned',
  async (t) => {
    const dataDir = await tempDir(t);
    const first = spawnDaemon({ GATEWAY_DATA_DIR: dataDir });
    t.teardown(() => abandonDaemon(first, dataDir));
    const url = await first.url;
    const lock = await fs.readFile(pidFile(path.join(dataDir, 'pg')), 'utf8');
    const postmaster = await postmasterPid(dataDir);

    const second = spawnDaemon({ GATEWAY_DATA_DIR: dataDir });
    t.equal((await second.exit).code, 1, 'the second exits 1');
    t.equal(second.stderr().trim().split('\n').length, 1, 'one line on stderr');
    t.match(
      second.stderr(),
      new RegExp(
        `data dir ${path.join(dataDir, 'pg')} is in use by a running PostgreSQL \\(pid ${postmaster}, from postmaster.pid\\).*kill -INT ${postmaster}`,
      ),
    );
    t.match(second.stdout(), /"level":60[^\n]*is in use by a running PostgreSQL/, 'and in the log at the default level');
    t.equal((await fetch(url + '/healthz')).status, 200, 'the first still answers');

    first.child.kill('SIGTERM');
    t.equal((await first.exit).code, 0);
    // As after a crash: the file names a server that is gone (the rest of the file as PostgreSQL wrote it).
    await fs.writeFile(pidFile(path.join(dataDir, 'pg')), lock.replace(/^\d+/, String(await deadPid())));
    const third = spawnDaemon({ GATEWAY_DATA_DIR: dataDir });
    await third.url;
    t.match(third.stdout(), /"level":30[^\n]*embedded PostgreSQL was not stopped cleanly last time/);
    third.child.kill('SIGTERM');
    t.equal((await third.exit).code, 0);
    t.same(await serverProcesses(path.join(dataDir, 'pg')), [], 'nothing left running');
  },
);
