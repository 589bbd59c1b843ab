// gatewayctl verify, policies prompt and approvals end to end: the compiled CLI against a real
// gatewayd on a throwaway database. Subtests run in order and share the daemon and its policies.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { ctlWithStdin, runCli, type CliRun } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { freeLoopbackPort, listenOnLoopback } from '../../helpers/ports.js';

const gw = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-verify-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

/** Nothing listens here: a command that exits 2 against it failed before sending any request. */
const NOWHERE = 'http://127.0.0.1:1';
const CARD = '4556 7375 8689 9855'; // Luhn-valid, not a published test number
const AWS = 'AKIAZ3MSJV4WWQ5RMNBV'; // shaped like an access key id, not the documented example
const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const REQUEST_ID_LINE = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');

const baseEnv = (): Record<string, string> => ({
  GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
  GATEWAY_URL: gw.url,
  GATEWAY_TOKEN: gw.adminToken,
});

function ctl(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, home, { ...baseEnv(), ...env });
}

/** runCli with `input` on stdin (runCli itself closes stdin). */

/**
 * Operator mistakes, against an address where nothing listens: exit 2 proves no request was sent.
 * They write nothing and share nothing, so they run side by side.
 */
async function usageErrors(t: Test, command: string[], cases: readonly (readonly [string[], RegExp])[]): Promise<void> {
  const runs = await Promise.all(cases.map(([args]) => ctl([...command, ...args, '--json'], { GATEWAY_URL: NOWHERE })));
  cases.forEach(([args, message], i) => {
    const what = args.join(' ').slice(0, 60);
    t.equal(runs[i]!.code, 2, `${what}: ${runs[i]!.stderr}`);
    t.match(runs[i]!.json?.error?.message ?? runs[i]!.stderr, message, what);
  });
}

const counts = async () =>
  (
    await gw.db`
  select (select count(*) from traces)::int as traces, (select count(*) from admin_log)::int as admin,
         (select count(*) from verify_policies)::int as policies, (select count(*) from approvals)::int as approvals,
         (select count(*) from approvals where status <> 'PENDING')::int as decided`
  )[0];
const traceRow = async (id: string) => (await gw.api('GET', `/api/v1/traces?id=${id}`)).body.traces[0];

t.test('verify: PASSED and MODIFIED exit 0 with the output; --json is the API body; TEXT, --file and stdin', async (t) => {
  const prompt = 'Summarise the quarterly report in three bullet points.';
  const human = await ctl(['verify', prompt]);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^decision:\s+PASSED$/m);
  t.match(human.stdout, new RegExp(`^output:\\s+${prompt}$`, 'm'));
  t.match(human.stdout, new RegExp(`^trace_id:\\s+${UUID}$`, 'm'));
  t.match(human.stdout, /^sequence_num:\s+\d+$/m);
  t.notMatch(human.stdout, /^reason:/m, 'no reason line when the daemon gives none');
  t.equal(human.stderr, '', 'nothing on stderr while the gateway is healthy');

  const json = await ctl(['verify', prompt, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, {
    decision: 'PASSED',
    output: prompt,
    trace_id: new RegExp(`^${UUID}$`),
    integrity_hash: /^sha256:/,
    sequence_num: Number,
  });
  t.same(
    Object.keys(json.json).sort(),
    ['content_type', 'decision', 'integrity_hash', 'output', 'sequence_num', 'should_anchor', 'trace_id'],
    'the API body, nothing added',
  );
  const row = await traceRow(json.json.trace_id);
  t.equal(row.sequence_num, json.json.sequence_num, "the sequence number printed is the ledger's");
  t.equal(row.decision, 'PASSED');

  const file = path.join(home, 'prompt.txt');
  await fs.writeFile(file, `Refund card ${CARD} for jane.doe@acme-corp.de`);
  const masked = await ctl(['verify', '--file', file]);
  t.equal(masked.code, 0, masked.stderr);
  t.match(masked.stdout, /^decision:\s+MODIFIED$/m);
  t.match(masked.stdout, /^output:\s+Refund card \[CREDIT_CARD_1\] for \[EMAIL_1\]$/m);
  t.match(masked.stdout, /^reason:\s+Sensitive data was masked by policy "Personal data"\.$/m);
  t.notMatch(masked.stdout, /4556|jane\.doe/, 'the masked output, never the original');

  const piped = await ctlWithStdin(['verify', '--file', '-'], 'line one\nline two\u001b[31m\n', home, baseEnv());
  t.equal(piped.code, 0, piped.stderr);
  t.match(
    piped.stdout,
    /^output:\s+line one\\nline two\\u001b\[31m\\n$/m,
    'stdin whole, untrimmed; control characters escaped, on one line',
  );
  const dash = await ctlWithStdin(['verify', '-', '--json'], `AWS key ${AWS}`, home, baseEnv());
  t.equal(dash.code, 4, 'TEXT - reads stdin too');
  t.equal(dash.json.decision, 'BLOCKED');
});

t.test('verify: BLOCKED exits 4 with the reason and no output', async (t) => {
  const human = await ctl(['verify', `please deploy with ${AWS}`]);
  t.equal(human.code, 4, human.stderr);
  t.match(human.stdout, /^decision:\s+BLOCKED$/m);
  t.match(human.stdout, /^reason:\s+Blocked by policy "Secrets"\.$/m);
  t.match(human.stdout, new RegExp(`^trace_id:\\s+${UUID}$`, 'm'));
  t.notMatch(human.stdout, /^output:/m, 'nothing to forward');
  t.notMatch(human.stdout, /AKIA/);
  t.equal(human.stderr, '', 'a decision is not an error');
  const json = await ctl(['verify', `please deploy with ${AWS}`, '--json']);
  t.equal(json.code, 4);
  t.match(json.json, { decision: 'BLOCKED', reason: /Secrets/, trace_id: String, sequence_num: Number });
  t.notOk('output' in json.json);
  t.notOk('error' in json.json, 'the 403 carries a decision, passed through as such');
});

t.test('verify: the metadata flags reach the trace; conflicting or bad flags exit 2 before any request', async (t) => {
  const agent = (await gw.api('POST', '/api/v1/agents', { body: { name: 'cli-bot', risk_classification: 'LIMITED' } })).body;
  t.equal((await gw.api('POST', `/api/v1/agents/${agent.id}/approve`, { body: {} })).status, 200);
  const run = await ctl([
    'verify',
    'hello there',
    '--agent-id',
    agent.id,
    '--source',
    'browser',
    '--env',
    'staging',
    '--metadata-json',
    '{"ticket":"T-1"}',
    '--json',
  ]);
  t.equal(run.code, 0, run.stderr);
  const row = await traceRow(run.json.trace_id);
  t.match(row, { environment: 'staging', action_name: 'browser.verify', agent_id: agent.id });
  t.match(row.metadata, { ticket: 'T-1', source: 'browser', environment: 'staging', agent_id: agent.id });

  const before = await counts();
  const big = path.join(home, 'big.txt');
  await fs.writeFile(big, 'a'.repeat(1_000_001));
  const bad: [string[], RegExp][] = [
    [[], /nothing to verify/],
    [['text', '--file', big], /TEXT or with --file, not both/],
    [['--file', path.join(home, 'missing.txt')], /--file: cannot read \S+missing\.txt: ENOENT/],
    [['--file', big], /--file: Too big/],
    [['x', '--metadata-json', '{'], /--metadata-json: not valid JSON/],
    [['x', '--metadata-json', '[1]'], /--metadata-json: expected a JSON object/],
    [['x', '--agent-id', 'a', '--metadata-json', '{"agent_id":"b"}'], /--agent-id and --metadata-json disagree about agent_id/],
    [['x', '--env', ''], /--env/],
  ];
  await usageErrors(t, ['verify'], bad);
  t.same(await counts(), before, 'nothing was written');
});

t.test("verify: a refusal exits 1 with the daemon's code, an unreachable daemon 3", async (t) => {
  const created = await gw.api('POST', '/api/v1/keys', { body: { name: 'gone', role: 'viewer' } });
  t.equal((await gw.api('DELETE', `/api/v1/keys/${created.body.id}`)).status, 200);
  const before = await counts();
  const revoked = await ctl(['verify', 'hello'], { GATEWAY_TOKEN: created.body.key });
  t.equal(revoked.code, 1);
  t.match(revoked.stderr, REQUEST_ID_LINE('unauthorized'));
  t.equal(revoked.stdout, '');
  t.same(await counts(), before, 'a refused request leaves no trace');
  // fetch refuses port 1 outright ("bad port"); a port just closed refuses the connection.
  const port = await freeLoopbackPort();
  const down = await ctl(['verify', 'hello'], { GATEWAY_URL: `http://127.0.0.1:${port}` });
  t.equal(down.code, 3);
  t.match(down.stderr, new RegExp(`^Error: cannot reach the gateway at http://127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)$`, 'm'));
});

/** Fault injection for what verify answers while degraded: a server with a fixed status, headers and body. */
async function fixedServer(t: Test, status: number, headers: Record<string, string>, body: unknown): Promise<string> {
  const server = http.createServer((_req, res) => {
    res.writeHead(status, { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers });
    res.end(body === undefined ? undefined : JSON.stringify(body));
  });
  return `http://127.0.0.1:${await listenOnLoopback(t, server)}`;
}

t.test('verify: X-Gateway-Status degraded is reported on stderr; a 503 without a body exits 3', async (t) => {
  const queued = await fixedServer(
    t,
    200,
    { 'X-Gateway-Status': 'degraded', 'X-Gateway-Trace-Persisted': 'dlq', 'X-Gateway-Degraded-Subsystems': 'trace_store' },
    { decision: 'PASSED', output: 'hi', trace_id: '0b7c7a46-3f5e-4a43-9d0e-1f2a3b4c5d6e', should_anchor: false, content_type: 'text' },
  );
  const run = await ctl(['verify', 'hi'], { GATEWAY_URL: queued });
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stderr, 'Warning: X-Gateway-Status: degraded (trace_store); trace persisted: dlq.\n');
  t.match(run.stdout, /^sequence_num:\s+pending \(queued while the trace store is degraded; numbered on replay\)$/m);

  const down = await fixedServer(
    t,
    503,
    { 'X-Gateway-Status': 'degraded', 'X-Gateway-Trace-Persisted': 'none', 'X-Gateway-Degraded-Subsystems': 'trace_store' },
    undefined,
  );
  const refused = await ctl(['verify', 'hi', '--json'], { GATEWAY_URL: down });
  t.equal(refused.code, 3);
  t.match(refused.json, {
    error: { code: 'gateway_unavailable', message: /could not record the decision durably \(degraded: trace_store\)/ },
  });
  const forbidden = await fixedServer(
    t,
    403,
    {},
    { error: { code: 'project_emergency_stopped', message: 'The project emergency stop is active.', request_id: 'r1' } },
  );
  const stopped = await ctl(['verify', 'hi'], { GATEWAY_URL: forbidden });
  t.equal(stopped.code, 1, 'a 403 with an error body is a refusal, not a BLOCKED decision');
  t.match(stopped.stderr, REQUEST_ID_LINE('project_emergency_stopped'));
});

t.test('policies prompt list: the defaults in a table; --json is the API body', async (t) => {
  const json = await ctl(['policies', 'prompt', 'list', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(json.json, (await gw.api('GET', '/api/v1/verify/policies')).body);
  const human = await ctl(['policies', 'prompt', 'list']);
  t.match(human.stdout, /^ID\s+NAME\s+DETECTOR\s+ACTION\s+SOURCES\s+ENVIRONMENTS\s+ENABLED\s+DEFAULT$/m);
  t.match(human.stdout, /^\S+\s+Secrets\s+secrets\s+BLOCK\s+api,browser\s+\*\s+yes\s+yes$/m);
  t.equal(human.stdout.trim().split('\n').length, 4, 'a header and the three default policies');
});

t.test('policies prompt add: bad flags exit 2 naming the flag, before any request; daemon refusals exit 1', async (t) => {
  const before = await counts();
  const named = ['--name', 'P', '--detector', 'keywords'];
  const base = [...named, '--config-json', '{"words":["payroll"]}'];
  const bad: [string[], RegExp][] = [
    [[...named, '--action', 'BLOCK', '--config-json', '{'], /--config-json: not valid JSON/],
    [[...base, '--action', 'BLOCK', '--sources', 'api,cli'], /^--sources: /],
    [[...base, '--action', 'BLOCK', '--environments', 'prod,bad env'], /^--environments: an environment name or \*/],
    [[...base, '--action', 'WARN'], /^--sources: WARN is shown by the browser extension/],
    [[...base, '--action', 'REDIRECT', '--sources', 'browser'], /^--redirect-url: REDIRECT needs action_config\.redirect_url/],
    [[...base, '--action', 'REDIRECT', '--sources', 'browser', '--redirect-url', 'ftp://x.example'], /^--redirect-url: /],
    [['--name', '  ', '--detector', 'keywords', '--action', 'BLOCK'], /^--name: /],
  ];
  await usageErrors(t, ['policies', 'prompt', 'add'], bad);
  const config = await ctl([
    'policies',
    'prompt',
    'add',
    '--name',
    'P',
    '--detector',
    'keywords',
    '--action',
    'BLOCK',
    '--config-json',
    '{"nope":1}',
  ]);
  t.equal(config.code, 1, "the detector's configuration is the daemon's to check");
  t.match(config.stderr, REQUEST_ID_LINE('validation_error'));
  const editor = await gw.key('editor');
  const asEditor = await ctl(['policies', 'prompt', 'add', ...base, '--action', 'BLOCK', '--json'], { GATEWAY_TOKEN: editor });
  t.equal(asEditor.code, 1);
  t.match(asEditor.json, { error: { code: 'forbidden', status: 403 } });
  const taken = await ctl(['policies', 'prompt', 'add', '--name', 'Secrets', '--detector', 'secrets', '--action', 'BLOCK']);
  t.equal(taken.code, 1);
  t.match(taken.stderr, REQUEST_ID_LINE('verify_policy_name_conflict'));
  const after = await counts();
  t.same(
    { policies: after.policies, admin: after.admin },
    { policies: before.policies, admin: before.admin + 1 },
    'no policy written (the editor key cost one admin-log entry)',
  );
});

let payrollId = '';
let heldTrace = '';

t.test('policies prompt add + verify: REQUIRE_APPROVAL holds the prompt and exits 5', async (t) => {
  const added = await ctl([
    'policies',
    'prompt',
    'add',
    '--name',
    'Payroll',
    '--detector',
    'keywords',
    '--action',
    'REQUIRE_APPROVAL',
    '--config-json',
    '{"words":["payroll"]}',
    '--environments',
    'prod,staging',
    '--json',
  ]);
  t.equal(added.code, 0, added.stderr);
  t.match(added.json, {
    name: 'Payroll',
    detector: 'keywords',
    action: 'REQUIRE_APPROVAL',
    config: { words: ['payroll'] },
    scope: { sources: ['api', 'browser'], environments: ['prod', 'staging'] },
    enabled: true,
    is_default: false,
  });
  payrollId = added.json.id;
  t.same(added.json, (await gw.api('GET', `/api/v1/verify/policies/${payrollId}`)).body);

  const held = await ctl(['verify', 'export the payroll table']);
  t.equal(held.code, 5, held.stderr);
  t.match(held.stdout, /^decision:\s+PENDING_APPROVAL$/m);
  t.match(held.stdout, /^reason:\s+Held for human approval by policy "Payroll"\.$/m);
  t.notMatch(held.stdout, /^output:/m, 'nothing forwarded while held');
  heldTrace = /^trace_id:\s+(\S+)$/m.exec(held.stdout)![1]!;
  const human = await ctl([
    'policies',
    'prompt',
    'add',
    '--name',
    'Off',
    '--detector',
    'regex',
    '--action',
    'FLAG',
    '--config-json',
    '{"patterns":[{"pattern":"zz+"}]}',
    '--disabled',
  ]);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^Added prompt policy \S+ "Off" \(regex -> FLAG, sources api,browser, environments \*, disabled\)\.$/m);
});

t.test('approvals: list, status and decide, once, by an Admin user token', async (t) => {
  const listed = await ctl(['approvals', 'list', '--json']);
  t.equal(listed.code, 0, listed.stderr);
  t.same(listed.json, (await gw.api('GET', '/api/v1/approvals')).body);
  t.equal(listed.json.approvals.length, 1);
  const approval = listed.json.approvals[0];
  t.match(approval, { kind: 'verify', trace_id: heldTrace, status: 'PENDING' });
  const table = await ctl(['approvals', 'list']);
  t.match(table.stdout, /^ID\s+HELD\s+AGENT\s+KEY\s+ARGUMENTS\s+FINDINGS\s+TIME LEFT$/m);
  t.match(
    table.stdout,
    new RegExp(`^${approval.id}\\s+prompt \\(trace ${heldTrace}\\)\\s+-\\s+${approval.credential_id}\\s+-\\s+-\\s+\\d+m \\d+s$`, 'm'),
  );

  const status = await ctl(['approvals', 'status', '--trace-id', heldTrace]);
  t.equal(status.code, 0, status.stderr);
  t.match(status.stdout, /^status:\s+PENDING$/m);
  t.match(status.stdout, new RegExp(`^approval_id:\\s+${approval.id}$`, 'm'));

  const before = await counts();
  await usageErrors(
    t,
    ['approvals', 'decide', approval.id],
    [
      [[], /Exactly one of the following must be provided: --approve, --deny/],
      [['--approve', '--deny'], /--approve|--deny/],
      [['--approve', '--comment', 'x'.repeat(2001)], /^--comment: Too big/],
    ],
  );
  const projectAdmin = await gw.key('admin');
  const afterKey = await counts();
  const noPerson = await ctl(['approvals', 'decide', approval.id, '--approve', '--json'], { GATEWAY_TOKEN: projectAdmin });
  t.equal(noPerson.code, 1);
  t.match(noPerson.json, { error: { code: 'mcp_release_author_unresolved', status: 403 } });
  t.same(await counts(), afterKey, 'refused decisions wrote nothing');
  t.equal(afterKey.admin, before.admin + 1, 'only the key creation');

  const decided = await ctl(['approvals', 'decide', approval.id, '--approve', '--comment', 'ok for the audit']);
  t.equal(decided.code, 0, decided.stderr);
  t.match(decided.stdout, new RegExp(`^APPROVED approval request ${approval.id} \\(trace ${heldTrace}\\) by admin at \\S+Z\\.$`, 'm'));
  const again = await ctl(['approvals', 'decide', approval.id, '--deny']);
  t.equal(again.code, 1);
  t.match(again.stderr, REQUEST_ID_LINE('approval_not_open'));
  const json = await ctl(['approvals', 'status', '--trace-id', heldTrace, '--json']);
  t.match(json.json, {
    trace_id: heldTrace,
    approval_id: approval.id,
    status: 'APPROVED',
    decided_by: 'admin',
    comment: 'ok for the audit',
  });

  const second = await ctl(['verify', 'payroll again', '--json']);
  t.equal(second.code, 5);
  const open = (await ctl(['approvals', 'list', '--json'])).json.approvals;
  const denied = await ctl(['approvals', 'decide', open[0].id, '--deny', '--json']);
  t.equal(denied.code, 0, denied.stderr);
  t.match(denied.json, { id: open[0].id, status: 'DENIED', trace_id: second.json.trace_id, comment: null });
  const traces = await gw.db`select decision from traces where trace_type = 'APPROVAL' order by sequence_num`;
  t.same(
    traces.map((r) => r.decision),
    ['PASSED', 'BLOCKED'],
    'each decision is a trace',
  );
  t.equal((await ctl(['approvals', 'list'])).stdout, 'No open approval requests.\n');

  await usageErrors(t, ['approvals', 'status'], [[['--trace-id', 'nope'], /^--trace-id: /]]);
  const unknown = await ctl(['approvals', 'status', '--trace-id', '00000000-0000-4000-8000-000000000000']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, REQUEST_ID_LINE('not_found'));
});

t.test('policies prompt update: only what is given changes; a half scope or action_config keeps the stored half', async (t) => {
  const disabled = await ctl(['policies', 'prompt', 'update', payrollId, '--disable']);
  t.equal(disabled.code, 0, disabled.stderr);
  t.match(
    disabled.stdout,
    new RegExp(
      `^Updated prompt policy ${payrollId} "Payroll" \\(keywords -> REQUIRE_APPROVAL, sources api,browser, environments prod,staging, disabled\\): enabled\\.$`,
      'm',
    ),
  );
  const passes = await ctl(['verify', 'payroll once more']);
  t.equal(passes.code, 0, 'a disabled policy no longer holds the prompt');

  const scoped = await ctl([
    'policies',
    'prompt',
    'update',
    payrollId,
    '--sources',
    'browser',
    '--action',
    'REDIRECT',
    '--redirect-url',
    'https://ai.example/ok',
    '--enable',
    '--json',
  ]);
  t.equal(scoped.code, 0, scoped.stderr);
  t.match(scoped.json, {
    action: 'REDIRECT',
    action_config: { redirect_url: 'https://ai.example/ok' },
    scope: { sources: ['browser'], environments: ['prod', 'staging'] },
    enabled: true,
  });
  const message = await ctl(['policies', 'prompt', 'update', payrollId, '--message', 'Use the approved assistant', '--json']);
  t.equal(message.code, 0, message.stderr);
  t.same(
    message.json.action_config,
    { redirect_url: 'https://ai.example/ok', message: 'Use the approved assistant' },
    'the stored redirect_url is kept',
  );
  const browser = await ctl(['verify', 'payroll', '--source', 'browser', '--json']);
  t.equal(browser.code, 4, 'REDIRECT is a refusal of the browser request');
  t.match(browser.json, { decision: 'BLOCKED', enforcement_action: 'REDIRECT', action_config: { redirect_url: 'https://ai.example/ok' } });

  const before = await counts();
  const bad: [string[], RegExp][] = [
    [[], /^nothing to change: give at least one of --name, /],
    [['--enable', '--disable'], /cannot also be provided/],
    [['--environments', 'a b'], /^--environments: /],
    [['--config-json', '"x"'], /^--config-json: /],
  ];
  await usageErrors(t, ['policies', 'prompt', 'update', payrollId], bad);
  const api = await ctl(['policies', 'prompt', 'update', payrollId, '--sources', 'api']);
  t.equal(api.code, 1, "REDIRECT on API traffic: the daemon's rule over stored and new fields");
  t.match(api.stderr, REQUEST_ID_LINE('validation_error'));
  t.equal((await ctl(['policies', 'prompt', 'update', 'no-such-policy', '--disable'])).code, 1);
  t.same(await counts(), before, 'refused updates wrote nothing');
});

t.test('policies prompt remove: gone from the list; removing again exits 1', async (t) => {
  const removed = await ctl(['policies', 'prompt', 'remove', payrollId]);
  t.equal(removed.code, 0, removed.stderr);
  t.equal(removed.stdout, `Removed prompt policy ${payrollId}.\n`);
  const list = (await ctl(['policies', 'prompt', 'list', '--json'])).json.policies;
  t.notOk(list.some((p: { id: string }) => p.id === payrollId));
  const again = await ctl(['policies', 'prompt', 'remove', payrollId, '--json']);
  t.equal(again.code, 1);
  t.match(again.json, { error: { code: 'not_found', status: 404 } });
  const changes = await gw.db`select action_name from traces where trace_type = 'POLICY_CHANGE' order by sequence_num`;
  t.same(
    changes.map((c) => c.action_name).filter((a) => a !== 'verify.policy.create'),
    ['verify.policy.update', 'verify.policy.update', 'verify.policy.update', 'verify.policy.delete'],
    'every change made through the CLI is a trace',
  );
});
