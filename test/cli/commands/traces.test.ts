// gatewayctl traces end to end: the compiled CLI against a real gatewayd on a throwaway database,
// with traces appended through the daemon's own TraceWriter. Subtests run in order and share them.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { CsvCounter, Progress } from '../../../cli/csv-tally.js';
import type { TraceInput } from '../../../daemon/ledger/streams.js';
import { RAW_PURPOSE } from '../../../daemon/traces/reveal.js';
import { CLI_BIN, runCli, type CliRun } from '../../helpers/cli.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { listenOnLoopback } from '../../helpers/ports.js';

const gw = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-traces-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

/** Nothing listens here: a command that exits 2 against it failed before sending any request. */
const NOWHERE = 'http://127.0.0.1:1';

function ctl(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: gw.url, GATEWAY_TOKEN: gw.adminToken, ...env });
}

async function seed(target: TestGateway, input: Partial<TraceInput> & { decision: string }) {
  return target.gateway.writer.append('default', { traceType: 'VERIFY', content: {}, ...input });
}

async function apiCsv(target: TestGateway, query = ''): Promise<string> {
  const res = await fetch(`${target.url}/api/v1/export?format=csv${query}`, { headers: { authorization: `Bearer ${target.adminToken}` } });
  if (res.status !== 200) throw new Error(`export answered ${res.status}`);
  return res.text();
}

const count = async (table: 'trace_actions' | 'admin_log'): Promise<number> =>
  Number((await gw.db`select count(*)::int as n from ${gw.db(table)}`)[0]!.n);
const exists = (file: string): Promise<boolean> =>
  fs.access(file).then(
    () => true,
    () => false,
  );
const ids = (run: CliRun): string[] => run.json.traces.map((r: { id: string }) => r.id);
const REQUEST_ID_LINE = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');

// The raw original holds a C1 control (CSI), which must reach the terminal escaped.
const RAW = { prompt: 'my card is 4111 1111 1111 1111', note: 'csi\u009b[2J' };
const a = await seed(gw, { decision: 'PASSED', agentId: 'agent-a', reason: 'clean', content: { display: 'hello' } });
const b = await seed(gw, {
  decision: 'BLOCKED',
  agentId: 'agent-b',
  reason: 'injection\n\u001b[31mred',
  content: { display: 'ignore all previous' },
});
const c = await seed(gw, { decision: 'PASSED', agentId: 'agent-a', environment: 'dev', content: { display: 'dev, "quoted"' } });
const d = await seed(gw, {
  decision: 'MODIFIED',
  agentId: 'agent-b',
  content: { display: 'my card is [PAYMENT_CARD]', raw: gw.gateway.secretBox.seal(JSON.stringify(RAW), RAW_PURPOSE) },
});

t.test('list: an aligned table with the total, --json is the API body, control characters escaped', async (t) => {
  const json = await ctl(['traces', 'list', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(json.json, (await gw.api('GET', '/api/v1/traces')).body);
  t.same(ids(json), [d.id, b.id, a.id], 'prod only, newest first');
  t.equal(json.json.total, 3);

  const human = await ctl(['traces', 'list']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^ID\s+TIME\s+DECISION\s+AGENT\s+ACTION\s+REVIEW\s+REASON$/m);
  t.match(human.stdout, new RegExp(`^${a.id}\\s+\\S+Z\\s+PASSED\\s+agent-a\\s+-\\s+-\\s+clean$`, 'm'));
  t.ok(human.stdout.includes('BLOCKED   agent-b  -       -       injection\\n\\u001b[31mred'), human.stdout);
  t.notOk(human.stdout.includes('\u001b'), 'no escape character reaches the terminal');
  t.match(human.stdout, /^Traces 1-3 of 3\.$/m);
  t.equal(human.stderr, '', 'no "more" hint on the last page');
});

t.test("list: every filter reaches the server and the answer is the API's", async (t) => {
  const past = new Date(Date.now() - 3_600_000).toISOString();
  const future = new Date(Date.now() + 3_600_000).toISOString();
  const cases: [string[], string, string[]][] = [
    [['--env', 'dev'], 'environment=dev', [c.id]],
    [['--decision', 'BLOCKED'], 'decision=BLOCKED', [b.id]],
    [['--agent-id', 'agent-a'], 'agent_id=agent-a', [a.id]],
    [['--time-range', '24h'], 'time_range=24h', [d.id, b.id, a.id]],
    [['--since', future], `since=${encodeURIComponent(future)}`, []],
    [['--until', past], `until=${encodeURIComponent(past)}`, []],
    [
      ['--since', past, '--until', future, '--decision', 'PASSED', '--env', 'dev'],
      `since=${encodeURIComponent(past)}&until=${encodeURIComponent(future)}&decision=PASSED&env=dev`,
      [c.id],
    ],
    [['--limit', '1', '--offset', '1'], 'limit=1&offset=1', [b.id]],
  ];
  for (const [args, query, expected] of cases) {
    const run = await ctl(['traces', 'list', ...args, '--json']);
    t.equal(run.code, 0, run.stderr);
    t.same(ids(run), expected, args.join(' '));
    t.same(run.json, (await gw.api('GET', `/api/v1/traces?${query}`)).body, `same answer as ?${query}`);
  }
  const page = await ctl(['traces', 'list', '--limit', '1', '--offset', '1']);
  t.match(page.stdout, /^Traces 2-2 of 3\.$/m);
  t.equal(page.stderr, 'More traces: --offset 2.\n');
  t.equal((await ctl(['traces', 'list', '--decision', 'ERROR'])).stdout, 'No traces.\n');
  t.equal((await ctl(['traces', 'list', '--offset', '5'])).stdout, 'No traces at offset 5; 3 match.\n');
});

t.test('list: bad flags exit 2 with the flag named, before any request', async (t) => {
  const bad: [string[], RegExp][] = [
    [['--decision', 'MAYBE'], /--decision/],
    [['--time-range', '1y'], /--time-range/],
    [['--since', 'yesterday'], /--since: Invalid ISO datetime/],
    [['--until', '2025-01-01T00:00:00'], /--until/],
    [['--limit', '0'], /--limit/],
    [['--limit', '1001'], /--limit/],
    [['--offset=-1'], /--offset/],
    [['--env', ''], /--env/],
    [['--agent-id', 'x'.repeat(201)], /--agent-id/],
  ];
  for (const [args, message] of bad) {
    const run = await ctl(['traces', 'list', ...args, '--json'], { GATEWAY_URL: NOWHERE });
    t.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    t.match(run.json, { error: { code: 'usage_error', message } }, args.join(' '));
  }
});

t.test('get: the full record, whatever its environment; an unknown id exits 1', async (t) => {
  const json = await ctl(['traces', 'get', d.id, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(json.json, (await gw.api('GET', `/api/v1/traces?id=${d.id}`)).body.traces[0]);
  t.match(json.json, { id: d.id, trace_type: 'VERIFY', proof: { integrity_hash: d.integrityHash } });
  t.notMatch(json.stdout, /4111[ -]?1111[ -]?1111/, 'never the raw original');

  const human = await ctl(['traces', 'get', c.id]);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, new RegExp(`^id:\\s+${c.id}$`, 'm'));
  t.match(human.stdout, /^environment:\s+dev$/m);
  t.match(human.stdout, /^display_content:\s+dev, "quoted"$/m);
  t.match(human.stdout, new RegExp(`^proof:\\s+\\{"integrity_hash":"${c.integrityHash}"`, 'm'));
  t.ok((await ctl(['traces', 'get', b.id])).stdout.includes('injection\\n\\u001b[31mred'), 'escaped on one line');

  const unknown = await ctl(['traces', 'get', '00000000-0000-0000-0000-000000000000', '--json']);
  t.equal(unknown.code, 1);
  t.match(unknown.json, { error: { code: 'not_found', message: /no trace with id 00000000-/ } });
  t.equal((await ctl(['traces', 'get', 'not-a-trace'])).code, 1);
});

t.test('action: recorded on the record; bad input exits 2 and an unknown trace 1, writing nothing', async (t) => {
  const before = { actions: await count('trace_actions'), log: await count('admin_log') };
  for (const args of [['--action', 'JUSTIFIED'], ['--action', 'JUSTIFIED', '--justification', 'too short'], ['--action', 'APPROVED'], []]) {
    const run = await ctl(['traces', 'action', b.id, ...args]);
    t.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
  }
  const short = await ctl(['traces', 'action', b.id, '--action', 'JUSTIFIED', '--justification', '  padded  ', '--json']);
  t.match(short.json, {
    error: { code: 'usage_error', message: /^--justification: JUSTIFIED needs a justification of at least 10 characters$/ },
  });
  const unknown = await ctl(['traces', 'action', '00000000-0000-0000-0000-000000000000', '--action', 'WARN_PROCEEDED']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, REQUEST_ID_LINE('not_found'));
  t.same({ actions: await count('trace_actions'), log: await count('admin_log') }, before, 'refusals wrote nothing');

  const warned = await ctl(['traces', 'action', a.id, '--action', 'WARN_PROCEEDED']);
  t.equal(warned.code, 0, warned.stderr);
  t.match(warned.stdout, new RegExp(`^Recorded WARN_PROCEEDED on trace ${a.id} by admin at \\S+Z \\(action \\S+\\)\\.$`, 'm'));
  const why = 'needed for the quarterly report';
  const justified = await ctl(['traces', 'action', b.id, '--action', 'JUSTIFIED', '--justification', why, '--json']);
  t.equal(justified.code, 0, justified.stderr);
  t.match(justified.json, { trace_id: b.id, action: 'JUSTIFIED', justification: why, actor_id: 'admin' });
  t.match((await ctl(['traces', 'get', b.id, '--json'])).json, { userAction: 'JUSTIFIED', justification: why });
  t.match((await ctl(['traces', 'list'])).stdout, new RegExp(`^${b.id}\\s+\\S+\\s+BLOCKED\\s+agent-b\\s+-\\s+JUSTIFIED\\s`, 'm'));
  t.same({ actions: await count('trace_actions'), log: await count('admin_log') }, { actions: before.actions + 2, log: before.log + 2 });
});

t.test('reveal: refused below audit level full and for a non-Admin; each success audited and flagged on stderr', async (t) => {
  const editor = await gw.key('editor');
  const before = await count('admin_log');
  const notFull = await ctl(['traces', 'reveal', d.id]);
  t.equal(notFull.code, 1);
  t.match(notFull.stderr, REQUEST_ID_LINE('reveal_requires_full_audit'));
  t.equal(notFull.stdout, '');
  t.equal((await gw.api('PATCH', '/api/v1/project', { body: { audit_detail_level: 'full' } })).status, 200);
  const afterPatch = await count('admin_log');
  t.equal(afterPatch, before + 1, 'the refusal wrote nothing');
  const asEditor = await ctl(['traces', 'reveal', d.id, '--json'], { GATEWAY_TOKEN: editor });
  t.equal(asEditor.code, 1);
  t.match(asEditor.json, { error: { code: 'forbidden', status: 403 } });
  t.notMatch(asEditor.stdout + asEditor.stderr, /4111[ -]?1111[ -]?1111/);
  t.equal(await count('admin_log'), afterPatch, "the Editor's refusal wrote nothing");

  const human = await ctl(['traces', 'reveal', d.id]);
  t.equal(human.code, 0, human.stderr);
  t.same(JSON.parse(human.stdout), RAW, 'the raw original, as JSON');
  t.notOk(human.stdout.includes('\u009b'), 'a C1 control is printed escaped');
  t.match(human.stderr, /^Warning: SENSITIVE: the raw original of trace \S+, unmasked/m);
  t.match(human.stderr, /recorded in the admin-action log \(trace\.reveal at /);
  const json = await ctl(['traces', 'reveal', d.id, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, { trace_id: d.id, raw: RAW, revealed_at: String });
  t.match(json.stderr, /SENSITIVE/, 'the warning goes to stderr in --json mode too');
  t.equal(await count('admin_log'), afterPatch + 2, 'one audit entry per reveal');
  const [entry] = await gw.db`select action, target_id from admin_log order by sequence_num desc limit 1`;
  t.match(entry, { action: 'trace.reveal', target_id: d.id });
  t.equal((await ctl(['traces', 'reveal', a.id])).code, 1, 'no raw original kept: raw_not_available');
});

t.test("export: the file is the API's CSV, filters pass through, stdout works, summary on stderr", async (t) => {
  const file = path.join(home, 'all.csv');
  const run = await ctl(['traces', 'export', '--out', file]);
  t.equal(run.code, 0, run.stderr);
  const expected = await apiCsv(gw);
  t.equal(await fs.readFile(file, 'utf8'), expected, "byte for byte the API's CSV");
  t.match(expected, /"injection\n/, 'a quoted line break, which the row count must not take for a record');
  t.equal(
    run.stderr,
    `Exported 4 rows (${Buffer.byteLength(expected).toLocaleString('en-US')} bytes) to ${file}.\n`,
    'the summary, and no progress when stderr is no TTY',
  );
  t.equal(run.stdout, '');
  t.notOk(await exists(`${file}.partial`));
  t.equal((await fs.stat(file)).mode & 0o777, 0o600);

  const blocked = path.join(home, 'blocked.csv');
  const filtered = await ctl(['traces', 'export', '--out', blocked, '--decision', 'BLOCKED', '--time-range', '24h', '--json']);
  t.equal(filtered.code, 0, filtered.stderr);
  const expectedBlocked = await apiCsv(gw, '&decision=BLOCKED&time_range=24h');
  t.equal(await fs.readFile(blocked, 'utf8'), expectedBlocked);
  t.same(filtered.json, { out: blocked, rows: 1, bytes: Buffer.byteLength(expectedBlocked), truncated: null });

  const piped = await ctl(['traces', 'export', '--out', '-', '--decision', 'PASSED']);
  t.equal(piped.code, 0, piped.stderr);
  t.equal(piped.stdout, await apiCsv(gw, '&decision=PASSED'));
  t.match(piped.stderr, /^Exported 2 rows \(\d+ bytes\) to stdout\.\n$/);
  const both = await ctl(['traces', 'export', '--out', '-', '--json']);
  t.equal(both.code, 2, 'JSON and CSV cannot share stdout');
  t.equal(both.stdout.includes('id,sequence_num'), false);
});

t.test('export: a refusal leaves neither FILE nor FILE.partial, and an earlier FILE untouched', async (t) => {
  const file = path.join(home, 'refused.csv');
  await fs.writeFile(file, 'an earlier export\n');
  const created = await gw.api('POST', '/api/v1/keys', { body: { name: 'gone', role: 'viewer' } });
  t.equal((await gw.api('DELETE', `/api/v1/keys/${created.body.id}`)).status, 200);

  const local = await ctl(['traces', 'export', '--out', file, '--decision', 'NOPE', '--json'], { GATEWAY_URL: NOWHERE });
  t.equal(local.code, 2, 'caught before any request');
  t.match(local.json, { error: { code: 'usage_error', message: /--decision/ } });
  const range = await ctl(['traces', 'export', '--out', file, '--time-range', '1y'], { GATEWAY_URL: NOWHERE });
  t.equal(range.code, 2);
  const revoked = await ctl(['traces', 'export', '--out', file], { GATEWAY_TOKEN: created.body.key });
  t.equal(revoked.code, 1);
  t.match(revoked.stderr, REQUEST_ID_LINE('unauthorized'));
  const unreachable = await ctl(['traces', 'export', '--out', file], { GATEWAY_URL: NOWHERE });
  t.equal(unreachable.code, 3);
  t.match(unreachable.stderr, /^Error: cannot reach the gateway at http:\/\/127\.0\.0\.1:1 \(ECONNREFUSED\)$/m);
  t.equal(await fs.readFile(file, 'utf8'), 'an earlier export\n', 'FILE untouched');
  t.notOk(await exists(`${file}.partial`), 'no partial file left');

  const nodir = await ctl(['traces', 'export', '--out', path.join(home, 'missing', 'x.csv')]);
  t.equal(nodir.code, 2);
  t.match(nodir.stderr, /cannot write .*x\.csv\.partial: ENOENT/);
  await fs.writeFile(`${file}.partial`, "someone else's");
  const busy = await ctl(['traces', 'export', '--out', file]);
  t.equal(busy.code, 2, 'an existing FILE.partial is never overwritten');
  t.match(busy.stderr, /refused\.csv\.partial exists/);
  t.equal(await fs.readFile(`${file}.partial`, 'utf8'), "someone else's");
});

t.test('export: the # truncated: trailer is kept in the file and reported', async (t) => {
  const capped = await startTestGateway(t, { env: { GATEWAY_EXPORT_ROW_CAP: '2' } });
  for (let i = 0; i < 3; i++) await seed(capped, { decision: 'PASSED', content: { display: `p${i}` } });
  const file = path.join(home, 'capped.csv');
  const run = await runCli(['traces', 'export', '--out', file, '--json'], home, {
    GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
    GATEWAY_URL: capped.url,
    GATEWAY_TOKEN: capped.adminToken,
  });
  t.equal(run.code, 0, run.stderr);
  const expected = await apiCsv(capped);
  t.equal(await fs.readFile(file, 'utf8'), expected);
  t.match(run.json, { rows: 2, truncated: /^# truncated: row cap of 2 reached/ });
  t.match(
    run.stderr,
    /^Exported 2 rows .*\nWarning: the export is incomplete, the gateway cut it at its row cap: # truncated: row cap of 2/m,
  );
});

/**
 * Fault injection for what the daemon does when its database fails mid-export (it cuts the
 * connection): a server that sends the start of a CSV and then `after` does.
 */
async function halfCsvServer(t: Test, after: 'cut' | 'stall'): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' });
    res.write('id,decision\r\n1,PASSED\r\n');
    if (after === 'cut') setTimeout(() => res.socket?.destroy(), 50);
  });
  const port = await listenOnLoopback(t, server);
  return `http://127.0.0.1:${port}`;
}

t.test('export: a connection cut mid-body exits 3 and removes the partial file', async (t) => {
  const url = await halfCsvServer(t, 'cut');
  const file = path.join(home, 'cut.csv');
  const run = await ctl(['traces', 'export', '--out', file], { GATEWAY_URL: url });
  t.equal(run.code, 3, run.stderr);
  t.match(run.stderr, /^Error: the export from http:\S+ broke off after 1 rows \(UND_ERR_SOCKET\); \S+cut\.csv was not written$/m);
  t.notOk(await exists(file));
  t.notOk(await exists(`${file}.partial`));
});

t.test('export: Ctrl-C removes the partial file and exits 130', async (t) => {
  const url = await halfCsvServer(t, 'stall');
  const file = path.join(home, 'interrupted.csv');
  const child = spawn(process.execPath, [CLI_BIN, 'traces', 'export', '--out', file], {
    cwd: home,
    stdio: ['ignore', 'ignore', 'pipe'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
      GATEWAY_URL: url,
      GATEWAY_TOKEN: 'x',
    },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  for (let i = 0; i < 400 && (await fs.readFile(`${file}.partial`, 'utf8').catch(() => '')) === ''; i++)
    await new Promise((r) => setTimeout(r, 25));
  t.equal(await fs.readFile(`${file}.partial`, 'utf8'), 'id,decision\r\n1,PASSED\r\n', 'the partial file grows while the body arrives');
  child.kill('SIGINT');
  t.equal(await exited, 130);
  t.match(stderr, /^Error: interrupted by SIGINT; \S+interrupted\.csv was not written$/m);
  t.notOk(await exists(`${file}.partial`));
  t.notOk(await exists(file));
});

t.test('the row counter and the progress line', async (t) => {
  const counter = new CsvCounter();
  const pieces = ['id,reason\r', '\n1,"two\r\nlines ""quoted', '"""\r\n2,plain\r\n# trunc', 'ated: row cap of 2 reached\r\n'];
  counter.end(Buffer.concat(pieces.map((p) => Buffer.from(p))));
  counter.resume();
  await new Promise((resolve) => counter.on('end', resolve));
  t.same(counter.tally, { rows: 2, bytes: Buffer.byteLength(pieces.join('')), truncated: '# truncated: row cap of 2 reached' });
  const unterminated = new CsvCounter();
  for (const piece of ['id\r\n', 'a\r', '\nb']) unterminated.write(Buffer.from(piece));
  unterminated.end();
  unterminated.resume();
  await new Promise((resolve) => unterminated.on('end', resolve));
  t.equal(unterminated.tally.rows, 2, 'a last record without its CRLF still counts');

  const written: string[] = [];
  let now = 0;
  const tty = new Progress({ isTTY: true, write: (s: string) => written.push(s) }, () => now);
  tty.update({ rows: 12_345, bytes: 3 * 1024 * 1024, truncated: null });
  now = 100;
  tty.update({ rows: 12_346, bytes: 3 * 1024 * 1024, truncated: null });
  now = 300;
  tty.update({ rows: 9, bytes: 10, truncated: null });
  tty.clear();
  const first = 'Exporting: 12,345 rows, 3.0 MB';
  const last = 'Exporting: 9 rows, 10 B';
  t.same(
    written,
    [`\r${first}`, `\r${last.padEnd(first.length)}`, `\r${' '.repeat(last.length)}\r`],
    'at most every 200 ms, each line covering the last, blanked at the end',
  );
  const pipe: string[] = [];
  const quiet = new Progress({ isTTY: false, write: (s: string) => pipe.push(s) });
  quiet.update({ rows: 1, bytes: 1, truncated: null });
  quiet.clear();
  t.same(pipe, [], 'nothing when not a terminal');
});

// Last: it registers an agent and adds a trace, which the counts above do not expect.
t.test('list: a registered agent is named beside its id; an unregistered one shows its id alone', async (t) => {
  const agent = await gw.api('POST', '/api/v1/agents', { body: { name: 'support-bot', protection_profile: 'safe' } });
  t.equal(agent.status, 201, agent.text);
  const named = await seed(gw, { decision: 'FLAGGED', agentId: agent.body.id, reason: 'named', environment: 'named-env' });
  const human = await ctl(['traces', 'list', '--env', 'named-env']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, new RegExp(`^${named.id}\\s+\\S+Z\\s+FLAGGED\\s+support-bot \\(${agent.body.id}\\)\\s+-\\s+-\\s+named$`, 'm'));
  const json = await ctl(['traces', 'list', '--env', 'named-env', '--json']);
  t.same(json.json, (await gw.api('GET', '/api/v1/traces?environment=named-env')).body, '--json stays the API body');
});
