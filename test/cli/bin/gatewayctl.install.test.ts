// gatewayctl as an installed command (docs/cli.md): `npm install -g` of the checkout puts
// gatewayctl and gatewayd on the PATH, and the CLI answers from any directory.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = fileURLToPath(new URL('../../../../', import.meta.url));

t.test('npm install -g of the checkout gives a gatewayctl that runs from any directory', async (t) => {
  const prefix = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-global-'));
  t.teardown(() => fs.rm(prefix, { recursive: true, force: true }));
  const env = { ...process.env, npm_config_loglevel: 'error', npm_config_fund: 'false', npm_config_audit: 'false' };
  execFileSync('npm', ['install', '-g', '--prefix', prefix, root], { env, stdio: 'pipe' });
  const pkg = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as { version: string };
  const elsewhere = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-cwd-'));
  t.teardown(() => fs.rm(elsewhere, { recursive: true, force: true }));
  const version = execFileSync(path.join(prefix, 'bin', 'gatewayctl'), ['--version'], {
    cwd: elsewhere,
    env: { PATH: process.env.PATH ?? '', HOME: elsewhere },
    encoding: 'utf8',
  });
  t.match(version, new RegExp(`^governance-gateway/${pkg.version.replaceAll('.', '\\.')} `), version);
  t.ok(await fs.stat(path.join(prefix, 'bin', 'gatewayd')), 'gatewayd is installed too');
});
