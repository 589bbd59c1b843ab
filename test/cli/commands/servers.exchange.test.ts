// gatewayctl servers update --exchange-*: a token exchange sign-in (docs/identity.md#upstream-identity)
// stored through the compiled CLI against a real gatewayd on a throwaway database; the client secret
// comes from a file, is never printed, returned or logged; bad combinations exit 2 before any request.
// (Its own file: servers.test.ts is already long-running.)
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { type CliRun, runCli } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { freeLoopbackPort } from '../../helpers/ports.js';

const gw = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-exchange-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

function ctl(args: string[], url = gw.url): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: url, GATEWAY_TOKEN: gw.adminToken });
}

async function secretFile(name: string, content: string): Promise<string> {
  const file = path.join(home, name);
  await fs.writeFile(file, content, { mode: 0o600 });
  return file;
}

const CLIENT_SECRET = `exch-${randomBytes(16).toString('hex')}`;

t.test('update --exchange-* stores a token exchange sign-in; the client secret is never printed, returned or logged', async (t) => {
  const reg = await ctl(['servers', 'register', '--name', 'exchanging', '--url', 'https://mcp.example.com/mcp', '--json']);
  t.equal(reg.code, 0, reg.stderr);
  const id = reg.json.id as string;
  const file = await secretFile('gateway.secret', `${CLIENT_SECRET}\n`);
  const args = ['--exchange-client-id', 'gateway', '--exchange-client-secret-file', file];
  const updated = await ctl([
    'servers',
    'update',
    id,
    ...args,
    '--exchange-resource',
    'https://mcp.example.com/mcp',
    '--exchange-scope',
    'mcp:tools',
  ]);
  t.equal(updated.code, 0, updated.stderr);
  t.match(updated.stdout, /auth_method, auth_config \(sign-in token_exchange, credential stored\)\.$/m);
  const shown = await ctl(['servers', 'get', id, '--json']);
  t.equal(shown.json.auth_method, 'token_exchange');
  t.notOk('auth_config' in shown.json, 'the settings stay sealed');
  const logged = await gw.db`select details::text as d from admin_log where target_id = ${id}`;
  for (const text of [updated.stdout, updated.stderr, shown.stdout, ...logged.map((r) => String(r.d))])
    t.notOk(text.includes(CLIENT_SECRET), 'the client secret appears nowhere');
  // Without an identity provider there is nothing to exchange at: the scan does not run.
  const scan = await ctl(['servers', 'scan', id, '--json']);
  t.equal(scan.code, 1);
  t.match(scan.json, { error: { code: 'auth_method_unsupported' } });
});

t.test('bad --exchange-* combinations exit 2 before any request', async (t) => {
  const dead = `http://127.0.0.1:${await freeLoopbackPort()}`;
  const token = await secretFile('ok.secret', CLIENT_SECRET);
  const exchange = ['--exchange-client-id', 'gw', '--exchange-client-secret-file', token];
  const cases: [string[], RegExp][] = [
    [['--exchange-client-id', 'gw'], /--exchange-client-id and --exchange-client-secret-file together/],
    [[...exchange], /resource or audience/],
    [[...exchange, '--exchange-resource', 'https://x.example/mcp', '--bearer-token-file', token], /replaces a shared secret/],
    [[...exchange, '--exchange-resource', 'https://x.example/mcp', '--auth-method', 'bearer'], /goes with --auth-method token_exchange/],
    [['--auth-method', 'token_exchange'], /--auth-method token_exchange needs --exchange-client-id/],
    [['--clear-auth', '--exchange-resource', 'https://x.example/mcp'], /--clear-auth takes no other sign-in flag/],
  ];
  for (const [args, message] of cases) {
    const run = await ctl(['servers', 'update', 'ID', ...args], dead);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, message, args.join(' '));
    t.notOk(run.stderr.includes(CLIENT_SECRET) || run.stdout.includes(CLIENT_SECRET), 'the secret is not echoed');
  }
});
