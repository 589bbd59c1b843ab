// gatewayctl contexts: several gateways saved by name, one current; GATEWAYCTL_CONTEXT for one
// command; tokens never printed; the first config shape still reads.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ctlWithStdin, runCli } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';

const prod = await startTestGateway(t);
const staging = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-context-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const config = path.join(home, 'conf', 'config.json');
const ctl = (args: string[], env: Record<string, string> = {}) => runCli(args, home, { GATEWAYCTL_CONFIG: config, ...env });
const gatewayOf = async (env: Record<string, string> = {}) => (await ctl(['whoami', '--json'], env)).json.url as string;

t.test('add, list, use, GATEWAYCTL_CONTEXT, remove', async (t) => {
  const login = await ctlWithStdin(['login', '--url', prod.url, '--token', '-', '--context', 'prod'], prod.adminToken, home, {
    GATEWAYCTL_CONFIG: config,
  });
  t.equal(login.code, 0, login.stderr);
  t.match(login.stdout, /as context prod/);
  const added = await ctlWithStdin(['context', 'add', 'staging', '--url', staging.url, '--token', '-'], staging.adminToken, home, {
    GATEWAYCTL_CONFIG: config,
  });
  t.equal(added.code, 0, added.stderr);
  t.equal(await gatewayOf(), prod.url, 'adding does not switch');

  const list = await ctl(['context', 'list']);
  t.match(list.stdout, new RegExp(`^\\s*\\*\\s+prod\\s+${prod.url.replaceAll('.', '\\.')}$`, 'm'));
  t.match(list.stdout, new RegExp(`^\\s*-\\s+staging\\s+${staging.url.replaceAll('.', '\\.')}$`, 'm'));
  for (const token of [prod.adminToken, staging.adminToken])
    t.notMatch(list.stdout + JSON.stringify((await ctl(['context', 'list', '--json'])).json), token, 'no token listed');
  t.equal((await fs.stat(config)).mode & 0o777, 0o600);

  t.equal(await gatewayOf({ GATEWAYCTL_CONTEXT: 'staging' }), staging.url, 'GATEWAYCTL_CONTEXT picks one for a command');
  t.equal((await ctl(['context', 'use', 'staging'])).code, 0);
  t.equal(await gatewayOf(), staging.url, 'use switches');
  t.match((await ctl(['whoami'])).stdout, /\(context staging\)/);

  const unknown = await ctl(['context', 'use', 'nope']);
  t.equal(unknown.code, 2);
  t.match(unknown.stderr, /no context "nope"/);
  t.equal((await ctl(['whoami'], { GATEWAYCTL_CONTEXT: 'nope' })).code, 2);
  const bad = await ctlWithStdin(['context', 'add', '../x', '--url', prod.url, '--token', '-'], prod.adminToken, home, {
    GATEWAYCTL_CONFIG: config,
  });
  t.equal(bad.code, 2, 'a context name is a plain name');
  const wrongToken = await ctlWithStdin(['context', 'add', 'broken', '--url', prod.url, '--token', '-'], 'gw_not_a_token', home, {
    GATEWAYCTL_CONFIG: config,
  });
  t.not(wrongToken.code, 0, 'the token is checked before it is saved');
  t.notMatch((await ctl(['context', 'list'])).stdout, /broken/);

  t.equal((await ctl(['logout'])).code, 0, 'logout forgets the current context');
  const after = await ctl(['context', 'list', '--json']);
  t.same(after.json, { current: null, contexts: [{ name: 'prod', url: prod.url }] });
  t.equal((await ctl(['context', 'remove', 'prod'])).code, 0);
  t.same((await ctl(['context', 'list', '--json'])).json, { current: null, contexts: [] });
});

t.test('a config file of the first shape ({url, token}) reads as the context "default"', async (t) => {
  const file = path.join(home, 'old.json');
  await fs.writeFile(file, JSON.stringify({ url: prod.url, token: prod.adminToken }), { mode: 0o600 });
  const who = await ctl(['whoami', '--json'], { GATEWAYCTL_CONFIG: file });
  t.equal(who.code, 0, who.stderr);
  t.match(who.json, { url: prod.url, context: 'default' });
});
