// The stdio sandbox, run for real with bubblewrap: what a confined server can and cannot reach.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { BWRAP_BIN, grantProblem, SANDBOX_HOME, sandboxArgs, type SandboxSpec } from '../../../daemon/mcp/stdio/sandbox.js';
import { eventually } from '../../helpers/eventually.js';

const LIMITS = { memoryBytes: 2 * 1024 ** 3, openFiles: 256, processes: 256, cpuSeconds: 60 };

async function tempDir(t: Test, name: string): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `gw-sandbox-${name}-`));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

function spec(privateDir: string, over: Partial<SandboxSpec> = {}): SandboxSpec {
  return { command: '/bin/sh', args: [], cwd: null, env: {}, network: false, grants: [], privateDir, hidden: [], limits: LIMITS, ...over };
}

/** Runs `script` with /bin/sh inside the sandbox; its exit code and output. */
function inSandbox(s: SandboxSpec, script: string): { code: number | null; out: string; err: string } {
  const run = spawnSync(BWRAP_BIN, sandboxArgs({ ...s, command: '/bin/sh', args: ['-c', script] }), { encoding: 'utf8', timeout: 30_000 });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

t.test('argv: network off unless allowed, grants as asked, hidden folders covered, limits through prlimit', async (t) => {
  const base = spec('/srv/gw/servers/a', {
    grants: [{ path: '/srv/docs', mode: 'ro' }],
    hidden: ['/srv/docs/.gateway', '/var/lib/gatewayd'],
  });
  const argv = sandboxArgs(base);
  t.ok(argv.includes('--unshare-net'));
  t.notOk(sandboxArgs({ ...base, network: true }).includes('--unshare-net'));
  for (const flag of ['--die-with-parent', '--unshare-user', '--unshare-pid', '--unshare-ipc', '--clearenv'])
    t.ok(argv.includes(flag), flag);
  t.match(argv.join(' '), /--ro-bind \/srv\/docs \/srv\/docs/);
  t.match(argv.join(' '), /--tmpfs \/srv\/docs\/\.gateway/, 'a hidden folder a grant reaches is covered');
  t.notMatch(argv.join(' '), /--tmpfs \/var\/lib\/gatewayd/, 'one nothing reaches needs no cover');
  t.match(argv.join(' '), /-- \/usr\/bin\/prlimit --as=2147483648 --nofile=256 --nproc=256 --cpu=60 -- \/bin\/sh$/);
  t.equal(grantProblem({ path: 'docs', mode: 'ro' }, []), 'docs: a granted path is absolute');
  t.match(grantProblem({ path: '/var/lib/gatewayd/keys', mode: 'ro' }, ['/var/lib/gatewayd']), /inside the gateway's own/);
  t.match(grantProblem({ path: '/srv/../var', mode: 'ro' }, []), /no "\.\." part/);
  t.equal(grantProblem({ path: '/srv/docs', mode: 'rw' }, ['/var/lib/gatewayd']), null);
});

t.test('a server reads neither the gateway data directory nor another server directory; it writes its own', async (t) => {
  const data = await tempDir(t, 'data');
  await fs.writeFile(path.join(data, 'secret.key'), 'k');
  const mine = await tempDir(t, 'mine');
  const other = await tempDir(t, 'other');
  await fs.writeFile(path.join(other, 'note'), 'theirs');
  const s = spec(mine, { hidden: [data] });
  const run = inSandbox(
    s,
    `cat ${data}/secret.key; echo "rc=$?"; cat ${other}/note; echo "rc=$?"; echo mine > ${SANDBOX_HOME}/x && echo wrote; echo $HOME`,
  );
  t.match(run.out, /^rc=1\nrc=1\nwrote\n\/home\/mcp\n$/, run.err);
  t.equal(await fs.readFile(path.join(mine, 'x'), 'utf8'), 'mine\n', 'its writes land in its own directory');
  // Granting the data directory's parent does not uncover it.
  const granted = inSandbox({ ...s, grants: [{ path: path.dirname(data), mode: 'ro' }] }, `ls -A ${data} | wc -l; cat ${data}/secret.key`);
  t.match(granted.out, /^0\n$/, 'the data directory is an empty folder inside');
  t.not(granted.code, 0);
});

t.test("a server sees neither the daemon's processes nor its environment; the system is read-only", async (t) => {
  const mine = await tempDir(t, 'env');
  process.env.GATEWAY_SANDBOX_TEST_SECRET = 'must-not-leak';
  t.teardown(() => {
    delete process.env.GATEWAY_SANDBOX_TEST_SECRET;
  });
  const run = inSandbox(
    spec(mine, { env: { GIVEN: 'yes' } }),
    'ls /proc | grep -c "^[0-9]"; env | sort; touch /usr/x 2>/dev/null || echo "read-only"',
  );
  const [count, ...rest] = run.out.trim().split('\n');
  t.ok(Number(count) <= 4, `${count} processes visible (the namespace's init, the shell, ls, grep)`);
  const env = rest.filter((l) => l.includes('='));
  t.same(env.map((l) => l.split('=')[0]).sort(), ['GIVEN', 'HOME', 'PATH', 'PWD'].sort(), 'only what was given');
  t.notMatch(run.out, /must-not-leak|DATABASE_URL/);
  t.match(run.out.trim(), /read-only$/);
});

t.test('the network is off unless the registration allows it', async (t) => {
  const mine = await tempDir(t, 'net');
  const off = inSandbox(spec(mine), 'ls /sys/class/net 2>/dev/null | wc -l; cat /proc/net/dev | tail -n +3 | wc -l');
  t.match(off.out, /1\n$/, 'only the loopback device');
  const on = inSandbox(spec(mine, { network: true }), 'cat /proc/net/dev | tail -n +3 | wc -l');
  t.ok(Number(on.out.trim()) >= 1);
});

t.test('memory past the limit fails inside the server, not in the daemon', async (t) => {
  const mine = await tempDir(t, 'mem');
  const run = inSandbox(
    spec(mine, { limits: { ...LIMITS, memoryBytes: 256 * 1024 ** 2 } }),
    'python3 -c "b = bytearray(512 * 1024 * 1024)"; echo "rc=$?"',
  );
  t.match(run.out, /rc=1/);
  t.match(run.err, /MemoryError/);
  const fits = inSandbox(
    spec(mine, { limits: { ...LIMITS, memoryBytes: 256 * 1024 ** 2 } }),
    'python3 -c "b = bytearray(64 * 1024 * 1024)"; echo "rc=$?"',
  );
  t.match(fits.out, /rc=0/, 'below the limit it runs');
});

t.test('nothing outlives the daemon: a SIGKILLed parent takes the server and what it forked along', async (t) => {
  const mine = await tempDir(t, 'kill');
  const marker = String(900_000 + Math.floor(Math.random() * 99_999));
  const argv = sandboxArgs({ ...spec(mine), command: '/bin/sh', args: ['-c', `sleep ${marker} & sleep ${marker} & wait`] });
  // The "daemon": a Node process that starts the sandbox and then is killed without a chance to clean up.
  const parent = spawn(
    process.execPath,
    [
      '-e',
      `require('node:child_process').spawn(${JSON.stringify(BWRAP_BIN)}, ${JSON.stringify(argv)}, { stdio: 'ignore' }); setInterval(() => {}, 1000);`,
    ],
    {
      stdio: 'ignore',
    },
  );
  const sleepers = async () => {
    let n = 0;
    for (const pid of await fs.readdir('/proc')) {
      if (!/^\d+$/.test(pid)) continue;
      const cmd = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
      if (cmd === `sleep\0${marker}\0`) n += 1;
    }
    return n;
  };
  t.ok(await eventually(async () => (await sleepers()) === 2, 30_000), 'the server and its child run');
  parent.kill('SIGKILL');
  t.ok(await eventually(async () => (await sleepers()) === 0, 30_000), 'and are gone after the parent is killed');
});
