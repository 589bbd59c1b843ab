// gatewayctl dashboard and extensions end to end: the compiled CLI, spawned as an operator would
// run it, against a real gatewayd (the command center and webhook routes mounted beside it on its
// database) on a throwaway database. Subtests run in order and share the one daemon.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { sparkline } from '../../../cli/dashboard-view.js';
import { CLI_BIN, runCli, type CliRun } from '../../helpers/cli.js';
import { startCcServer } from '../../helpers/cc-server.js';
import { freeLoopbackPort } from '../../helpers/ports.js';

const cc = await startCcServer(t);
const gw = cc.gw;
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-dashboard-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

const env = (url: string): Record<string, string> => ({
  GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
  GATEWAY_URL: url,
  GATEWAY_TOKEN: gw.adminToken,
});
/** The command center lives on the mounted server, everything else on the daemon itself. */
const ctl = (args: string[], url = args[0] === 'dashboard' ? cc.url : gw.url): Promise<CliRun> => runCli(args, home, env(url));

const closedPort = freeLoopbackPort;

t.test('sparkline: one character per point, scaled to the largest, nothing as a dot', async (t) => {
  t.equal(sparkline([0, 1, 2, 4, 8]), '·▁▂▄█');
  t.equal(sparkline([0, 0]), '··');
  t.equal(sparkline([1, 2], 8), '▁▂');
});

t.test('dashboard --json returns the command center; the human view shows KPIs, sparklines, top policies and action items', async (t) => {
  await gw.api('POST', '/api/v1/verify', { body: { prompt: 'Summarise the quarterly report.' } });
  await gw.api('POST', '/api/v1/verify', { body: { prompt: 'deploy with aws_access_key_id=AKIAZ3MSJV4WWQ5RMNBV please' } });
  await gw.api('POST', '/api/v1/agents', { body: { name: 'bot-pending' } });
  const traces = Number((await gw.db`select count(*)::int as n from traces`)[0]!.n);

  const json = await ctl(['dashboard', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.equal(json.json.range, '24h');
  t.equal(json.json.kpis.traces.value, traces);
  t.equal(json.json.timeline.length, 24);

  const human = await ctl(['dashboard', '--range', '1h']);
  t.equal(human.code, 0, human.stderr);
  const out = human.stdout;
  t.match(out, /^Command center · range 1h · /);
  t.match(out, /Governance\s+\d+\/100\s+\(traffic \d+, agents \d+, mcp \d+\)/);
  t.match(out, new RegExp(`Traces\\s+${traces}\\s+\\(\\+${traces} vs previous\\)`));
  t.match(out, /Interceptions\s+1 /);
  t.match(out, /Timeline\s+[·▁-█]{60} {2}max \d+ per minute/);
  t.match(out, /blocked\s+[·▁-█]{60} {2}1/);
  t.match(out, /Top policies\s+Secrets 1/);
  t.match(out, /Action items\n {2}medium\s+agents_pending_approval\s+1 /);
  t.notMatch(out, /AKIAZ3MSJV4WWQ5RMNBV/);
});

t.test('dashboard: a bad range or --watch with --json is an operator mistake (2); an unreachable daemon is 3', async (t) => {
  const bad = await ctl(['dashboard', '--range', '2d']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /range/);
  const both = await ctl(['dashboard', '--watch', '--json']);
  t.equal(both.code, 2);
  t.match(both.stderr, /--watch/);
  const down = await ctl(['dashboard'], `http://127.0.0.1:${await closedPort()}`);
  t.equal(down.code, 3);
  t.match(down.stderr, /cannot reach the gateway/);
});

t.test('dashboard --watch redraws on every interval until interrupted, then exits 0', async (t) => {
  const child = spawn(process.execPath, [CLI_BIN, 'dashboard', '--range', '6h', '--watch', '--interval', '1'], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '', HOME: home, ...env(cc.url) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
  const deadline = Date.now() + 60_000;
  while ((stdout.match(/^Command center · range 6h/gm) ?? []).length < 2 && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 100));
  t.ok((stdout.match(/^Command center · range 6h/gm) ?? []).length >= 2, 'redrawn at least twice');
  t.match(stdout, /Refreshing every 1 s; Ctrl-C to stop\./);
  t.notMatch(stdout, /\u001b\[/, 'no screen clearing when stdout is not a terminal');
  child.kill('SIGINT');
  t.equal(await closed, 0);
});

t.test('extensions create, list and revoke; the key works for the webhook until revoked', async (t) => {
  const created = await ctl(['extensions', 'create', '--name', 'browser guard', '--json']);
  t.equal(created.code, 0, created.stderr);
  t.match(created.json, { id: String, name: 'browser guard', api_key: /^gge_/ });
  const human = await ctl(['extensions', 'create', '--name', 'siem']);
  t.equal(human.code, 0);
  t.match(human.stdout.trim(), /^gge_\S+$/, 'only the key on stdout');
  t.match(human.stderr, /shown once/);

  const list = await ctl(['extensions', 'list', '--json']);
  t.same(
    list.json.extensions.map((e: { name: string }) => e.name),
    ['browser guard', 'siem'],
  );
  t.notOk(list.stdout.includes(created.json.api_key), 'never the key');
  const table = await ctl(['extensions', 'list']);
  t.match(table.stdout, /^ID\s+NAME\s+PREFIX\s+CREATED/);
  t.match(table.stdout, /browser guard/);

  const event = { event_type: 'login', source: 'sso' };
  t.equal((await cc.call('POST', '/api/v1/webhooks/ingest', { token: created.json.api_key, body: event })).status, 202);
  const revoked = await ctl(['extensions', 'revoke', created.json.id]);
  t.equal(revoked.code, 0, revoked.stderr);
  t.match(revoked.stdout, new RegExp(`Revoked extension ${created.json.id} at `));
  t.equal((await cc.call('POST', '/api/v1/webhooks/ingest', { token: created.json.api_key, body: event })).status, 401);
  t.ok((await ctl(['extensions', 'list', '--json'])).json.extensions.find((e: { id: string }) => e.id === created.json.id).revoked_at);

  const unknown = await ctl(['extensions', 'revoke', 'nope']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, /^Error: not_found: /);
  const noName = await ctl(['extensions', 'create']);
  t.equal(noName.code, 2);
});
