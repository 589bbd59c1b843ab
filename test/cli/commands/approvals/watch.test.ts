// gatewayctl approvals watch in a real terminal: the compiled CLI inside tmux (a 160x40 pane) against
// a real gatewayd whose MCP proxy holds tool calls for approval. The screen is read with
// capture-pane, keys go in with send-keys, decisions are checked through the API. tmux is required:
// without it this file fails (.ci/run installs it).
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import t, { type Test } from 'tap';
import { CLI_BIN, runCli } from '../../../helpers/cli.js';
import { eventually } from '../../../helpers/eventually.js';
import { activeServer, startCountingServer, startProxyGateway } from '../../../helpers/mcp-proxy.js';

const run = promisify(execFile);

try {
  execFileSync('tmux', ['-V'], { stdio: 'ignore' });
} catch {
  throw new Error('tmux is required for the approvals watch terminal test (apt-get install tmux; .ci/run installs it)');
}

const px = await startProxyGateway(t);
const { gw } = px;
const up = await startCountingServer(t);
const server = await activeServer(px, up.url, { get_weather: 'ALLOW', delete_file: 'REQUIRE_APPROVAL', ping: 'ALLOW', progress: 'ALLOW' });
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-watch-'));
// Removed last (teardowns run last-registered first), after the tmux server; retried while its processes exit.
t.teardown(() => fs.rm(home, { recursive: true, force: true, maxRetries: 20, retryDelay: 100 }));
const config = path.join(home, 'gatewayctl.json');
await fs.writeFile(config, JSON.stringify({ url: gw.url, token: gw.adminToken }), { mode: 0o600 });
// A tmux server of this test's own (its socket), no status bar (the pane is the whole 40 rows), and
// a pane that stays if its command dies, so its last screen can still be read.
const tmuxConf = path.join(home, 'tmux.conf');
await fs.writeFile(tmuxConf, 'set -g status off\nset -g remain-on-exit on\n');
const SOCKET = `gw-watch-${process.pid}`;

async function tmux(...args: string[]): Promise<string> {
  return (await run('tmux', ['-u', '-L', SOCKET, '-f', tmuxConf, ...args])).stdout;
}
t.teardown(() => tmux('kill-server').catch(() => undefined));

const quote = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * `approvals watch` in a new 160x40 pane, with a clean environment (nothing of the test's own);
 * when it ends the pane prints its exit status and stays open (a shell waiting for a line), so the
 * terminal it left behind (screen, cursor, alternate screen) can still be read.
 */
async function startWatch(session: string, redirect = ''): Promise<void> {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TERM: 'screen', LANG: 'C.UTF-8', GATEWAYCTL_CONFIG: config };
  const vars = Object.entries(env).map(([k, v]) => `${k}=${quote(v)}`);
  const command = `env -i ${vars.join(' ')} ${quote(process.execPath)} ${quote(CLI_BIN)} approvals watch${redirect}; echo "watch exited $?"; read line`;
  await tmux('new-session', '-d', '-s', session, '-x', '160', '-y', '40', command);
}

const screen = (session: string): Promise<string> => tmux('capture-pane', '-p', '-t', session);
const keys = (session: string, ...names: string[]): Promise<string> => tmux('send-keys', '-t', session, ...names);
const typeText = (session: string, text: string): Promise<string> => tmux('send-keys', '-t', session, '-l', text);

interface Pane {
  alternate: boolean;
  cursor: boolean;
  title: string;
}
async function pane(session: string): Promise<Pane> {
  const out = await tmux('display-message', '-p', '-t', session, '#{alternate_on}|#{cursor_flag}|#{pane_title}');
  const [alternate, cursor, title] = out.replace(/\n$/, '').split('|');
  return { alternate: alternate === '1', cursor: cursor === '1', title: title ?? '' };
}

/** Waits (bounded) until the screen satisfies `check`; the assertion shows the last screen read. */
async function until(t: Test, session: string, what: string, check: (text: string) => boolean): Promise<string> {
  let last = '';
  const ok = await eventually(async () => {
    last = await screen(session);
    if (check(last)) return true;
    await new Promise((resolve) => setTimeout(resolve, 100)); // a tmux process per read: not too many
    return false;
  }, 15_000);
  t.ok(ok, ok ? what : `${what}\n--- screen ---\n${last}`);
  return last;
}

/** Waits until the command ended; its exit status as the pane printed it. */
async function exitStatus(t: Test, session: string): Promise<string | undefined> {
  const text = await until(t, session, `${session}: the command ended`, (s) => /^watch exited \d+$/m.test(s));
  return /^watch exited (\d+)$/m.exec(text)?.[1];
}

const approvalOf = async (id: string) => (await gw.api('GET', `/api/v1/approvals/${id}`)).body;

async function hold(args: Record<string, unknown>): Promise<string> {
  const res = await px.callTool(server.id, 'delete_file', args);
  if (res.body?.error?.code !== -32004) throw new Error(`not held: ${res.text}`);
  return res.body.error.data.approval_id as string;
}

const held = `delete_file on ${server.name}`;

t.test('not a terminal on stdin or stdout: a usage error pointing at approvals list, no request sent', async (t) => {
  const env = { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: 'http://127.0.0.1:1', GATEWAY_TOKEN: 'x' };
  const piped = await runCli(['approvals', 'watch'], home, env);
  t.equal(piped.code, 2, piped.stderr);
  t.match(piped.stderr, /^Error: approvals watch needs a terminal on stdin and stdout; .*"gatewayctl approvals list"/);
  t.equal(piped.stdout, '', 'nothing drawn');
  const json = await runCli(['approvals', 'watch', '--json'], home, env);
  t.equal(json.code, 2);
  t.match(json.json, { error: { code: 'usage_error', message: /approvals list --json/ } });

  const out = path.join(home, 'out.txt');
  await startWatch('no-stdin', ' </dev/null');
  await startWatch('no-stdout', ` >${quote(out)}`);
  for (const session of ['no-stdin', 'no-stdout']) {
    t.equal(await exitStatus(t, session), '2', `${session}: exit 2`);
    t.match(await screen(session), /needs a terminal on stdin and stdout/, `${session}: the reason on stderr`);
  }
  t.equal(await fs.readFile(out, 'utf8'), '', 'no screen written into a file');
});

t.test('the inbox: requests appear, a approves, d denies, with a comment; q quits and restores the terminal', async (t) => {
  const hostile = '\u001b]0;owned\u0007\u001b[2J \u009b31m';
  const first = await hold({ path: '/srv/reports', note: hostile });
  await startWatch('inbox');
  let text = await until(
    t,
    'inbox',
    'the held call is listed',
    (s) => s.includes('1 open') && s.includes(held) && s.includes('/srv/reports'),
  );
  t.match(text, /^Approval inbox · 1 open · http:\/\/127\.0\.0\.1:\d+ · every 2 s/);
  t.match(text, new RegExp(`^> ${held.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`, 'm'), 'the row, selected');
  text = await until(t, 'inbox', 'the detail of the selected request (GET /approvals/{id})', (s) => s.includes('"path": "/srv/reports"'));
  t.match(text, new RegExp(`ID\\s+${first}\\s+status PENDING`));
  t.match(text, '\\u001b]0;owned\\u0007\\u001b[2J \\u009b31m', 'the hostile argument as escaped text');
  let p = await pane('inbox');
  t.ok(p.alternate, 'on the alternate screen');
  t.notOk(p.cursor, 'cursor hidden');
  t.not(p.title, 'owned', 'the argument did not set the window title');

  const second = await hold({ path: '/srv/archive' });
  await until(t, 'inbox', 'a new request appears after a redraw', (s) => s.includes('2 open') && s.includes('/srv/archive'));

  await keys('inbox', 'j');
  await until(t, 'inbox', 'j selects the second', (s) => new RegExp(`ID\\s+${second}\\s+status PENDING`).test(s));
  await keys('inbox', 'k');
  await until(t, 'inbox', 'k back to the first', (s) => new RegExp(`ID\\s+${first}\\s+status PENDING`).test(s));
  const styled = await tmux('capture-pane', '-p', '-e', '-t', 'inbox');
  t.match(styled, new RegExp(`^\u001b\\[7m> delete_file on ${server.name}`, 'm'), 'the selected row in inverse video');

  // a smaller terminal: the inbox redraws to its size (the old 160-column rows would lose their last column)
  await tmux('resize-window', '-t', 'inbox', '-x', '100', '-y', '30');
  await until(t, 'inbox', 'redrawn at 100 columns', (s) => /^ {2}HELD .*TIME LEFT$/m.test(s) && s.split('\n').length <= 31);
  await tmux('resize-window', '-t', 'inbox', '-x', '160', '-y', '40');
  await until(t, 'inbox', 'and back at 160', (s) => /^ {2}HELD .{100,}TIME LEFT$/m.test(s));

  await keys('inbox', 'a');
  await until(t, 'inbox', 'a asks for a comment', (s) => s.includes(`Approve ${held} (${first})? Comment:`) && s.includes('Esc cancels'));
  await typeText('inbox', 'nope');
  await keys('inbox', 'Escape');
  await until(t, 'inbox', 'Esc cancels', (s) => s.includes('Cancelled: nothing was decided.') && !s.includes('Comment:'));
  t.equal((await approvalOf(first)).status, 'PENDING', 'nothing decided');

  await keys('inbox', 'a');
  await until(t, 'inbox', 'the prompt again', (s) => s.includes('Comment:'));
  await typeText('inbox', 'ok for the audit');
  await until(t, 'inbox', 'the comment as typed', (s) => s.includes('? Comment: ok for the audit'));
  await keys('inbox', 'Enter');
  t.ok(await eventually(async () => (await approvalOf(first)).status === 'APPROVED'), 'approved through the API');
  t.match(await approvalOf(first), { status: 'APPROVED', comment: 'ok for the audit', decided_by: String });
  text = await until(t, 'inbox', 'the approved request is gone', (s) => s.includes('1 open') && !s.includes('/srv/reports'));
  t.match(text, new RegExp(`APPROVED ${held} \\(${first}\\) by .+: ok for the audit`), 'the status line says what happened');
  t.match(text, new RegExp(`ID\\s+${second}\\s+status PENDING`), 'the selection moved to the one left');

  await keys('inbox', 'd');
  await until(t, 'inbox', 'd asks for a comment', (s) => s.includes(`Deny ${held} (${second})? Comment:`));
  await keys('inbox', 'Enter');
  t.ok(await eventually(async () => (await approvalOf(second)).status === 'DENIED'), 'denied through the API');
  t.equal((await approvalOf(second)).comment, null, 'no comment typed, none kept');
  await until(t, 'inbox', 'an empty inbox', (s) => s.includes('0 open') && s.includes('No open approval requests') && s.includes('DENIED'));

  // decided by someone else while the prompt is open: the daemon's refusal on the status line
  const third = await hold({ path: '/srv/tmp' });
  await until(t, 'inbox', 'the third request', (s) => s.includes('/srv/tmp'));
  await keys('inbox', 'a');
  await until(t, 'inbox', 'the prompt on the third', (s) => s.includes(`Approve ${held} (${third})?`));
  const bob = await gw.key('admin', 'bob');
  t.equal((await gw.api('POST', `/api/v1/approvals/${third}/decide`, { token: bob, body: { approved: false } })).status, 200);
  await typeText('inbox', 'late');
  await keys('inbox', 'Enter');
  await until(t, 'inbox', 'approval_not_open shown', (s) => /Not decided: approval_not_open: /.test(s));
  t.match(await approvalOf(third), { status: 'DENIED', decided_by: 'bob', comment: null }, "bob's decision stands");
  t.equal(up.calls(), 0, 'deciding forwards nothing by itself');

  await keys('inbox', 'q');
  t.equal(await exitStatus(t, 'inbox'), '0', 'q exits 0');
  p = await pane('inbox');
  t.notOk(p.alternate, 'the alternate screen is left');
  t.ok(p.cursor, 'the cursor is shown again');
  t.notMatch(await screen('inbox'), /Approval inbox/, "the operator's own screen is back");
});

t.test('Ctrl-C quits too, and restores the terminal', async (t) => {
  await startWatch('ctrl-c');
  await until(t, 'ctrl-c', 'the empty inbox', (s) => s.includes('No open approval requests'));
  await keys('ctrl-c', 'C-c');
  t.equal(await exitStatus(t, 'ctrl-c'), '0', 'Ctrl-C exits 0');
  const p = await pane('ctrl-c');
  t.notOk(p.alternate, 'the alternate screen is left');
  t.ok(p.cursor, 'the cursor is shown again');
});
