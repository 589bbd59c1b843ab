import { execFileSync } from 'node:child_process';
import t, { type Test } from 'tap';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const unitFile = fileURLToPath(new URL('../../systemd/gatewayd.service', import.meta.url));

function settings(text: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out.set(m[1]!, [...(out.get(m[1]!) ?? []), m[2]!]);
  }
  return out;
}

t.test('the unit runs gatewayd directly, unprivileged, hardened, with its state directory', async (t) => {
  const unit = settings(await fs.readFile(unitFile, 'utf8'));
  const exec = unit.get('ExecStart')?.[0] ?? '';
  t.match(exec, /node \S*dist\/daemon\/main\.js$/, 'the binary itself, so SIGTERM reaches it');
  t.notMatch(exec, /\bnpm\b/);
  t.ok(unit.get('User')?.[0] && unit.get('User')![0] !== 'root', 'an unprivileged user');
  t.equal(unit.get('StateDirectory')?.[0], 'governance-gateway');
  t.ok(unit.get('Environment')?.includes('GATEWAY_DATA_DIR=/var/lib/governance-gateway'), 'the data dir is the state directory');
  t.match(unit.get('EnvironmentFile')?.[0], /gatewayd\.env$/);
  t.equal(unit.get('Restart')?.[0], 'on-failure');
  t.equal(unit.get('RestartPreventExitStatus')?.[0], '78', 'a configuration error is not retried');
  for (const [key, value] of [
    ['NoNewPrivileges', 'yes'],
    ['ProtectSystem', 'strict'],
    ['PrivateTmp', 'yes'],
    ['ProtectHome', 'yes'],
    ['KillSignal', 'SIGTERM'],
  ]) {
    t.equal(unit.get(key!)?.[0], value, key);
  }
  t.equal(unit.get('CapabilityBoundingSet')?.[0], '', 'no capabilities');
});

/** The overall exposure systemd-analyze gives the unit, or null where systemd-analyze is missing. */
function exposure(file: string): number | null {
  let out: string;
  try {
    out = execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', file], { encoding: 'utf8' });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stdout?: string };
    if (e.code === 'ENOENT') return null;
    out = e.stdout ?? ''; // it exits non-zero above its threshold; the rating is still printed
  }
  const m = /Overall exposure level for \S+: ([\d.]+)/.exec(out);
  if (!m) throw new Error(`no exposure level in:\n${out}`);
  return Number(m[1]);
}

t.test('systemd-analyze security rates the unit 2.0 or lower, keeping what the daemon needs', async (t) => {
  const level = exposure(unitFile);
  if (level === null) {
    t.comment('systemd-analyze is not installed here: the rating is checked where it is');
  } else {
    t.ok(level <= 2.0, `exposure ${level} (at most 2.0)`);
  }
  const unit = settings(await fs.readFile(unitFile, 'utf8'));
  t.same(unit.get('RestrictAddressFamilies'), ['AF_INET AF_INET6 AF_UNIX'], 'TCP to upstreams and PostgreSQL, unix sockets');
  t.notOk(unit.has('PrivateNetwork'), 'upstreams are on the network');
  t.notOk(unit.has('IPAddressDeny'), 'upstreams are anywhere');
  t.notOk(unit.has('MemoryDenyWriteExecute'), "V8's JIT needs writable executable pages");
  for (const kind of ['user', 'mnt', 'pid', 'ipc', 'net'])
    t.match(
      unit.get('RestrictNamespaces')?.[0],
      new RegExp(`\\b${kind}\\b`),
      `${kind} namespaces allowed (the bubblewrap sandbox of stdio MCP servers)`,
    );
  t.equal(unit.get('SystemCallErrorNumber')?.[0], 'EPERM', 'a filtered call fails instead of killing gatewayd');
  t.equal(unit.get('UMask')?.[0], '0077');
});

const dropInFile = fileURLToPath(new URL('../../systemd/gatewayd-stdio-servers.conf', import.meta.url));

/** systemd-analyze's security report of the unit with the stdio drop-in installed beside it (systemd reads gatewayd.service.d/), or null without systemd-analyze. */
async function withDropIn(t: Test): Promise<string | null> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-unit-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'gatewayd.service');
  await fs.copyFile(unitFile, file);
  await fs.mkdir(path.join(dir, 'gatewayd.service.d'));
  await fs.copyFile(dropInFile, path.join(dir, 'gatewayd.service.d', 'stdio-servers.conf'));
  try {
    return execFileSync('systemd-analyze', ['security', '--offline=true', '--no-pager', file], { encoding: 'utf8' });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stdout?: string };
    if (e.code === 'ENOENT') return null;
    return e.stdout ?? '';
  }
}

// The unit cannot be started here (PID 1 is not systemd on the machines the tests run on): what
// systemd-analyze reads of its settings is what is checked, and the /proc mount that
// ProtectKernelTunables/ProtectKernelLogs would refuse to bubblewrap is in the drop-in's comment.
t.test('with the stdio drop-in, the unit admits what bubblewrap needs: its namespaces, its system calls, a fresh /proc', async (t) => {
  const report = await withDropIn(t);
  if (report === null) return void t.comment('systemd-analyze is not installed here: checked where it is');
  const kinds = { user: 'user', pid: 'process', ipc: 'IPC', mnt: 'file system', net: 'network', uts: 'hostname', cgroup: 'cgroup' };
  for (const [kind, words] of Object.entries(kinds))
    t.match(report, new RegExp(`RestrictNamespaces=~${kind}\\s+Service may create ${words} namespaces`), `${kind} namespaces admitted`);
  t.match(report, /SystemCallFilter=~@mount\s+System call allow list defined for service, and @mount is included/, '@mount admitted');
  t.match(report, /SystemCallFilter=~@privileged\s+.*\(e\.g\. capset is allowed\)/, 'capset admitted');
  t.match(report, /ProtectKernelTunables=\s+Service may alter kernel tunables/, 'no read-only mounts over /proc/sys');
  t.match(report, /ProtectKernelLogs=\s+Service may read/, 'none over /proc/kmsg');
  t.match(report, /PrivateUsers=\s+Service does not have access to other users/, 'the unit keeps its own user namespace');
  t.match(report, /NoNewPrivileges=\s+Service processes cannot acquire new privileges/, 'and no new privileges');
  const level = Number(/Overall exposure level for \S+: ([\d.]+)/.exec(report)?.[1]);
  t.ok(level <= 2.5, `exposure ${level} with the drop-in (at most 2.5)`);
});
