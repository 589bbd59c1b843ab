import t from 'tap';
import fs from 'node:fs/promises';
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
