// gatewayctl whoami and logout: the compiled CLI against a real gatewayd.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, ctlWithStdin } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';

const gw = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-whoami-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const config = path.join(home, 'conf', 'config.json');
const pkg = JSON.parse(await fs.readFile('package.json', 'utf8')) as { version: string };

t.test('whoami names the gateway, both versions, the project and the credential; logout forgets the saved token only', async (t) => {
  const login = await ctlWithStdin(['login', '--url', gw.url, '--token', '-'], gw.adminToken, home, { GATEWAYCTL_CONFIG: config });
  t.equal(login.code, 0, login.stderr);
  const who = await runCli(['whoami'], home, { GATEWAYCTL_CONFIG: config });
  t.equal(who.code, 0, who.stderr);
  t.match(
    who.stdout,
    new RegExp(`^gateway: +${gw.url.replaceAll('.', '\\.')} \\(gatewayd ${pkg.version}, gatewayctl ${pkg.version}\\)$`, 'm'),
  );
  t.match(who.stdout, /^project: +default \(default\)$/m);
  t.match(who.stdout, /^as: +user admin \(token ".+"\), role admin, credential \S+$/m);
  t.match(who.stdout, new RegExp(`^from: +${config} \\(context default\\)$`, 'm'));
  t.notMatch(who.stdout, gw.adminToken, 'never the token');
  const json = await runCli(['whoami', '--json'], home, { GATEWAYCTL_CONFIG: config });
  t.match(json.json, {
    url: gw.url,
    gateway_version: pkg.version,
    gatewayctl_version: pkg.version,
    project: { id: 'default' },
    credential: { kind: 'user_token', role: 'admin', user_id: 'admin' },
  });

  const viewer = await gw.key('viewer');
  const asKey = await runCli(['whoami'], home, {
    GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
    GATEWAY_URL: gw.url,
    GATEWAY_TOKEN: viewer,
  });
  t.match(asKey.stdout, /^as: +project key "viewer key", role viewer/m);
  t.match(asKey.stdout, /^from: +GATEWAY_URL and GATEWAY_TOKEN$/m);

  const out = await runCli(['logout'], home, { GATEWAYCTL_CONFIG: config });
  t.equal(out.code, 0, out.stderr);
  t.match(out.stdout, /Logged out of context default: its token is removed from .*The token is still valid on the gateway/);
  await t.rejects(fs.stat(config), { code: 'ENOENT' }, 'the saved file is gone');
  t.equal((await gw.api('GET', '/api/v1/me')).status, 200, 'the token itself still works');
  const after = await runCli(['whoami'], home, { GATEWAYCTL_CONFIG: config });
  t.not(after.code, 0);
  t.match(after.stderr, /not logged in/);
  const again = await runCli(['logout'], home, { GATEWAYCTL_CONFIG: config });
  t.match(again.stdout, /Not logged in: no saved connection/);
});
