// gatewayctl agents end to end: the compiled CLI against a real gatewayd on a throwaway database.
// Subtests run in order and share the one daemon and the agents registered along the way.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, type CliRun } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';

const gw = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-agents-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

/** Runs gatewayctl with a clean environment, logged in through GATEWAY_URL and GATEWAY_TOKEN. */
function ctl(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: gw.url, GATEWAY_TOKEN: gw.adminToken, ...env });
}

const statusInDb = async (id: string): Promise<string> => String((await gw.db`select status from agents where id = ${id}`)[0]!.status);
const count = async (table: 'traces' | 'admin_log'): Promise<number> =>
  Number((await gw.db`select count(*)::int as n from ${gw.db(table)}`)[0]!.n);
const REQUEST_ID_LINE = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');

let support = '';
let ops = '';

t.test('register shows PENDING_APPROVAL and no key, in --json and in one human line', async (t) => {
  const created = await ctl([
    'agents',
    'register',
    '--name',
    'support-bot',
    '--risk-classification',
    'limited',
    '--tag',
    'support',
    '--tag',
    'eu',
    '--permission',
    'tickets:read',
    '--requires-human-oversight',
    '--infrastructure-permissions',
    '{"k8s":["read"]}',
    '--protection-profile',
    'balanced',
    '--json',
  ]);
  t.equal(created.code, 0, created.stderr);
  t.match(created.json, {
    id: String,
    name: 'support-bot',
    status: 'PENDING_APPROVAL',
    risk_classification: 'LIMITED',
    protection_profile: 'balanced',
    tags: ['support', 'eu'],
    permissions: ['tickets:read'],
    requires_human_oversight: true,
    infrastructure_permissions: { k8s: ['read'] },
    capability_model: { profile: 'balanced' },
    request_count: 0,
    last_seen_at: null,
  });
  t.same(
    Object.keys(created.json).filter((k) => /key|token|secret/i.test(k)),
    [],
    'no key or token field',
  );
  support = created.json.id;
  t.same(created.json, (await gw.api('GET', `/api/v1/agents/${support}`)).body, '--json is the API record');

  const human = await ctl(['agents', 'register', '--name', 'ops-agent']);
  t.equal(human.code, 0, human.stderr);
  const line = /^Registered agent (\S+) "ops-agent" \(PENDING_APPROVAL, profile safe\)\.$/.exec(human.stdout.trim());
  t.ok(line, human.stdout);
  ops = line?.[1] ?? '';
  t.equal(await statusInDb(ops), 'PENDING_APPROVAL');

  const bad = await ctl(['agents', 'register', '--name', 'x', '--infrastructure-permissions', '{nope', '--json']);
  t.equal(bad.code, 2);
  t.match(bad.json, { error: { code: 'usage_error', message: /--infrastructure-permissions/ } });
  t.equal(Number((await gw.db`select count(*)::int as n from agents`)[0]!.n), 2, 'the bad registration wrote nothing');
});

t.test('list filters by status, pages with --all, and prints an aligned table', async (t) => {
  t.equal((await gw.api('POST', `/api/v1/agents/${ops}/approve`)).status, 200);
  const active = await ctl(['agents', 'list', '--status', 'ACTIVE', '--json']);
  t.equal(active.code, 0, active.stderr);
  t.same(
    active.json.agents.map((a: { id: string }) => a.id),
    [ops],
  );
  t.equal(active.json.next_cursor, null);

  const firstPage = await ctl(['agents', 'list', '--limit', '1', '--json']);
  t.equal(firstPage.json.agents.length, 1);
  t.equal(firstPage.json.next_cursor, firstPage.json.agents[0].id);
  t.match(firstPage.stderr, /--cursor/);
  const all = await ctl(['agents', 'list', '--limit', '1', '--all', '--json']);
  t.same(all.json.agents.map((a: { id: string }) => a.id).sort(), [ops, support].sort());
  t.equal(all.json.next_cursor, null);

  const table = await ctl(['agents', 'list', '--status', 'PENDING_APPROVAL', '--risk', 'limited']);
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, /^ID\s+NAME\s+STATUS\s+RISK\s+PROFILE\s+TODAY\s+LAST SEEN$/m);
  t.match(table.stdout, new RegExp(`^${support}\\s+support-bot\\s+PENDING_APPROVAL\\s+LIMITED\\s+balanced\\s+0\\s+-$`, 'm'));
  t.notMatch(table.stdout, /ops-agent/);
});

t.test('update changes the given fields and --set-json objects; bad --set-json exits 2 and sends nothing', async (t) => {
  const fria = { completed: true, reviewer: 'dpo' };
  const updated = await ctl([
    'agents',
    'update',
    support,
    '--framework',
    'langchain',
    '--risk-classification',
    'high',
    '--permitted-tool',
    'search',
    '--permitted-tool',
    'read_ticket',
    '--set-json',
    `fria_assessment=${JSON.stringify(fria)}`,
    '--json',
  ]);
  t.equal(updated.code, 0, updated.stderr);
  t.match(updated.json, { id: support, framework: 'langchain', risk_classification: 'HIGH', permitted_tools: ['search', 'read_ticket'] });
  t.same(updated.json.fria_assessment, fria);
  const human = await ctl(['agents', 'update', support, '--description', 'answers tickets']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, new RegExp(`^Updated agent ${support} "support-bot" \\(PENDING_APPROVAL\\): description\\.$`, 'm'));

  const before = (await gw.api('GET', `/api/v1/agents/${support}`)).body;
  const logBefore = await count('admin_log');
  const badJson = await ctl(['agents', 'update', support, '--set-json', 'capability_model={not json', '--json']);
  t.equal(badJson.code, 2);
  t.match(badJson.json, { error: { code: 'usage_error', message: /--set-json capability_model: not valid JSON/ } });
  const badKey = await ctl(['agents', 'update', support, '--set-json', 'owner={}']);
  t.equal(badKey.code, 2);
  t.match(badKey.stderr, /KEY one of capability_model/);
  const badModel = await ctl(['agents', 'update', support, '--set-json', 'capability_model={"profile":"reckless"}']);
  t.equal(badModel.code, 2, 'the shared schema checks the model before sending');
  const nothing = await ctl(['agents', 'update', support]);
  t.equal(nothing.code, 2);
  t.match(nothing.stderr, /nothing to change/);
  t.same((await gw.api('GET', `/api/v1/agents/${support}`)).body, before, 'agent unchanged');
  t.equal(await count('admin_log'), logBefore, 'nothing written');
});

t.test('approve, suspend, reactivate, revoke: each step in the database and the ledger', async (t) => {
  const tracesBefore = await count('traces');
  const approved = await ctl(['agents', 'approve', support, '--reason', 'reviewed', '--json']);
  t.equal(approved.code, 0, approved.stderr);
  t.equal(approved.json.status, 'ACTIVE');
  t.equal(await statusInDb(support), 'ACTIVE');

  const suspended = await ctl(['agents', 'suspend', support, '--reason', 'incident 42']);
  t.equal(suspended.code, 0, suspended.stderr);
  t.equal(suspended.stdout.trim(), `Suspended agent ${support} "support-bot": now SUSPENDED.`);
  t.match((await gw.db`select status, suspended_reason from agents where id = ${support}`)[0], {
    status: 'SUSPENDED',
    suspended_reason: 'incident 42',
  });

  const reactivated = await ctl(['agents', 'reactivate', support, '--json']);
  t.equal(reactivated.code, 0, reactivated.stderr);
  t.match(reactivated.json, { status: 'ACTIVE', suspended_reason: null });

  const revoked = await ctl(['agents', 'revoke', support, '--reason', 'decommissioned', '--json']);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal(revoked.json.status, 'REVOKED');
  t.equal(await statusInDb(support), 'REVOKED');
  const shown = await ctl(['agents', 'get', support]);
  t.match(shown.stdout, /^status:\s+REVOKED$/m);
  t.match(shown.stdout, /^capability_model:\s+\{.*"profile":"balanced"/m);
  const lifecycle = await gw.db`select action_name from traces where agent_id = ${support} and sequence_num > 0 order by sequence_num`;
  t.same(lifecycle.map((r) => r.action_name).slice(-4), ['agent.approve', 'agent.suspend', 'agent.reactivate', 'agent.revoke']);
  t.equal(await count('traces'), tracesBefore + 4, 'one lifecycle trace per step');
});

t.test('an illegal transition exits 1 with the daemon code and request id, and changes nothing', async (t) => {
  t.equal(await statusInDb(ops), 'ACTIVE');
  const tracesBefore = await count('traces');
  const human = await ctl(['agents', 'resume', ops]);
  t.equal(human.code, 1);
  t.match(human.stderr, REQUEST_ID_LINE('agent_transition_invalid'));
  t.equal(human.stdout, '');
  const json = await ctl(['agents', 'resume', ops, '--reason', 'again', '--json']);
  t.equal(json.code, 1);
  t.match(json.json, { error: { code: 'agent_transition_invalid', message: String, request_id: String, status: 409 } });
  t.ok(json.stderr.includes(`(request_id ${json.json.error.request_id})`), 'same request id on stderr');
  const terminal = await ctl(['agents', 'reactivate', support]);
  t.equal(terminal.code, 1, 'REVOKED is final');
  t.match(terminal.stderr, REQUEST_ID_LINE('agent_transition_invalid'));

  t.equal(await statusInDb(ops), 'ACTIVE', 'status unchanged in the database');
  t.equal(await statusInDb(support), 'REVOKED');
  t.equal(await count('traces'), tracesBefore, 'no lifecycle trace for a refusal');
});
