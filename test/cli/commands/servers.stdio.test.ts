// gatewayctl servers register --stdio end to end: the compiled CLI against a real gatewayd that
// allows /usr/bin/node, registering the real server-everything (program after --, secret variables
// from stdin or a file, never argv), then scanning it over stdio in the sandbox.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { ctlWithStdin, runCli, type CliRun } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const NODE_MODULES = path.join(ROOT, 'node_modules');
const EVERYTHING = path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
const SECRET = 'stdio-cli-secret-4b1d9e';

const gw = await startTestGateway(t, { env: { GATEWAY_STDIO_COMMANDS: '/usr/bin/node', GATEWAY_SCAN_TIMEOUT_SECONDS: '60' } });
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-stdio-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const env = { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: gw.url, GATEWAY_TOKEN: gw.adminToken };
const ctl = (args: string[]): Promise<CliRun> => runCli(args, home, env);
const servers = async () => Number((await gw.db`select count(*)::int as n from mcp_servers`)[0]!.n);

t.test('register --stdio: the program after --, secret variables from stdin; --json prints the record; then it scans', async (t) => {
  const reg = await ctlWithStdin(
    [
      'servers',
      'register',
      '--name',
      'everything',
      '--stdio',
      '--env',
      'PLAIN=visible',
      '--secret-env-stdin',
      '--grant-ro',
      NODE_MODULES,
      '--json',
      '--',
      'node',
      EVERYTHING,
      'stdio',
    ],
    `# the token\nAPI_TOKEN=${SECRET}\n`,
    home,
    env,
  );
  t.equal(reg.code, 0, reg.stderr);
  t.match(reg.json, {
    id: String,
    transport: 'stdio',
    status: 'PENDING_APPROVAL',
    sandbox: 'sandboxed',
    stdio: {
      command: 'node',
      args: [EVERYTHING, 'stdio'],
      env: { PLAIN: 'visible' },
      secret_env_names: ['API_TOKEN'],
      grants: [{ path: NODE_MODULES, mode: 'ro' }],
      network: false,
      process_mode: 'shared',
    },
  });
  t.notOk(reg.stdout.includes(SECRET) || reg.stderr.includes(SECRET), 'the secret is never printed');
  const scan = await ctl(['servers', 'scan', reg.json.id, '--json']);
  t.equal(scan.code, 0, scan.stderr);
  t.match(scan.json, { scanned: true });
  t.ok(scan.json.tool_count > 0);
});

t.test('--secret-env-file, --cwd, --grant-rw, --network and --per-session reach the record', async (t) => {
  const file = path.join(home, 'secrets.env');
  await fs.writeFile(file, `A_KEY=${SECRET}\nB_KEY=two\n`, { mode: 0o600 });
  const reg = await ctl([
    'servers',
    'register',
    '--name',
    'second',
    '--stdio',
    '--secret-env-file',
    file,
    '--cwd',
    '/tmp',
    '--grant-rw',
    '/tmp',
    '--network',
    '--per-session',
    '--json',
    '--',
    '/usr/bin/node',
    '--version',
  ]);
  t.equal(reg.code, 0, reg.stderr);
  t.match(reg.json.stdio, {
    command: '/usr/bin/node',
    args: ['--version'],
    cwd: '/tmp',
    secret_env_names: ['A_KEY', 'B_KEY'],
    grants: [{ path: '/tmp', mode: 'rw' }],
    network: true,
    process_mode: 'per-session',
  });
  t.notOk(reg.stdout.includes(SECRET));
});

t.test('operator mistakes exit 2 and register nothing; a program the daemon does not allow exits 1 naming the setting', async (t) => {
  const before = await servers();
  const mistakes: [string[], RegExp][] = [
    [['--name', 'x', '--stdio'], /give the program after --/],
    [['--name', 'x', '--stdio', '--url', 'https://a.example.com/mcp', '--', 'node'], /give --url .* or --stdio/],
    [['--name', 'x', '--url', 'https://a.example.com/mcp', '--', 'node'], /needs --stdio/],
    [['--name', 'x', '--stdio', '--secret-env', `A=${SECRET}`, '--', 'node'], /Nonexistent flag: --secret-env/],
    [['--name', 'x', '--stdio', '--env', 'not an assignment', '--', 'node'], /--env: entry 1 is not NAME=VALUE/],
  ];
  for (const [args, message] of mistakes) {
    const run = await ctl(['servers', 'register', ...args]);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, message, args.join(' '));
    t.notOk(run.stderr.includes(SECRET), 'a refused secret is not echoed');
  }
  const refused = await ctl(['servers', 'register', '--name', 'shell', '--stdio', '--', 'sh', '-c', 'id']);
  t.equal(refused.code, 1);
  t.match(refused.stderr, /mcp_stdio_command_not_allowed: sh is not allowed: GATEWAY_STDIO_COMMANDS/);
  t.equal(await servers(), before);
});
