// gatewayctl end to end: the compiled CLI, spawned as an operator would run it, against a real
// gatewayd on a throwaway database. Subtests run in order and share the one daemon.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, type CliRun } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { freeLoopbackPort } from '../../helpers/ports.js';

const gw = await startTestGateway(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-test-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const configFile = path.join(home, 'conf', 'gatewayctl.json');

/** Runs gatewayctl with a clean environment: nothing from the developer's own login leaks in. */
function ctl(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: configFile, ...env });
}

const closedPort = freeLoopbackPort;

const adminLogCount = async (): Promise<number> => Number((await gw.db`select count(*)::int as n from admin_log`)[0]!.n);
const REQUEST_ID_LINE = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');

t.test('login refuses a bad token, then saves URL and token 0600 without printing the token', async (t) => {
  const bad = await ctl(['login', '--url', gw.url, '--token', 'gw_not_a_real_token']);
  t.equal(bad.code, 1);
  t.match(bad.stderr, REQUEST_ID_LINE('unauthorized'));
  await t.rejects(fs.stat(configFile), { code: 'ENOENT' }, 'nothing saved for a refused token');

  // A pre-existing, world-readable file must end up 0600 too.
  await fs.mkdir(path.dirname(configFile), { recursive: true });
  await fs.writeFile(configFile, '{}', { mode: 0o644 });
  await fs.chmod(configFile, 0o644);
  const ok = await ctl(['login', '--url', `${gw.url}/`, '--token', gw.adminToken, '--json']);
  t.equal(ok.code, 0, ok.stderr);
  t.equal(ok.json.url, gw.url);
  t.equal(ok.json.config_path, configFile);
  t.notOk(ok.stdout.includes(gw.adminToken) || ok.stderr.includes(gw.adminToken), 'token never printed');
  const human = await ctl(['login', '--url', gw.url, '--token', gw.adminToken]);
  t.equal(human.code, 0);
  t.match(human.stdout, /Logged in to/);
  t.notOk(human.stdout.includes(gw.adminToken), 'token not in human output either');
  t.equal((await fs.stat(configFile)).mode & 0o777, 0o600);
  t.same(JSON.parse(await fs.readFile(configFile, 'utf8')), {
    current: 'default',
    contexts: { default: { url: gw.url, token: gw.adminToken } },
  });
});

t.test('keys create, list and revoke with --json; a revoked key is refused', async (t) => {
  const created = await ctl(['keys', 'create', '--name', 'ci reader', '--role', 'viewer', '--json']);
  t.equal(created.code, 0, created.stderr);
  t.match(created.json, { name: 'ci reader', role: 'viewer', kind: 'project_key', user_id: null, id: String, key: String });
  t.match(created.stderr, /shown once/);
  const key = created.json.key as string;
  t.equal((await gw.api('GET', '/api/v1/project', { token: key })).status, 200, 'the new key works');

  const user = await ctl(['keys', 'create', '--name', 'alice', '--role', 'EDITOR', '--user-id', 'alice']);
  t.equal(user.code, 0, user.stderr);
  t.match(user.stdout.trim(), /^\S+$/, 'human output puts only the key on stdout');

  const listed = await ctl(['keys', 'list', '--json']);
  t.equal(listed.code, 0);
  const row = listed.json.keys.find((k: { id: string }) => k.id === created.json.id);
  t.match(row, { name: 'ci reader', kind: 'project_key', role: 'viewer', revoked_at: null });
  t.match(
    listed.json.keys.find((k: { user_id: string | null }) => k.user_id === 'alice'),
    { kind: 'user_token', role: 'editor' },
  );
  t.notOk(listed.stdout.includes(key), 'list shows no secret');

  const revoked = await ctl(['keys', 'revoke', created.json.id, '--json']);
  t.equal(revoked.code, 0, revoked.stderr);
  t.equal(revoked.json.id, created.json.id);
  t.type(revoked.json.revoked_at, 'string');
  t.equal((await gw.api('GET', '/api/v1/project', { token: key })).status, 401, 'revoked key is refused at once');
  const table = await ctl(['keys', 'list']);
  t.match(table.stdout, new RegExp(`^${created.json.id}\\s+ci reader\\s+project_key\\s+viewer\\s.*${revoked.json.revoked_at}$`, 'm'));
});

t.test('a refusal passes the daemon code, message and request_id through, exit 1', async (t) => {
  const viewer = await gw.key('viewer');
  const before = await adminLogCount();
  const human = await ctl(['keys', 'create', '--name', 'sneaky', '--role', 'admin'], { GATEWAY_TOKEN: viewer });
  t.equal(human.code, 1);
  t.match(human.stderr, REQUEST_ID_LINE('forbidden'));
  const json = await ctl(['keys', 'list', '--json'], { GATEWAY_TOKEN: viewer });
  t.equal(json.code, 1);
  t.match(json.json, { error: { code: 'forbidden', message: String, request_id: String } });
  t.ok(json.stderr.includes(`(request_id ${json.json.error.request_id})`), 'same request id on stderr');
  t.equal(await adminLogCount(), before, 'nothing written');
  t.equal((await gw.db`select count(*)::int as n from credentials where name = 'sneaky'`)[0]!.n, 0);
});

t.test('project show and set change exactly the given fields', async (t) => {
  const set = await ctl([
    'project',
    'set',
    '--retention-days',
    '45',
    '--no-attestation',
    '--audit-detail-level',
    'full',
    '--monthly-base-fee-eur',
    '12.5',
    '--json',
  ]);
  t.equal(set.code, 0, set.stderr);
  t.match(set.json, { retention_days: 45, attestation_enabled: false, audit_detail_level: 'full', monthly_base_fee_eur: 12.5 });
  const shown = await ctl(['project', 'show', '--json']);
  t.equal(shown.code, 0);
  t.same(shown.json, (await gw.api('GET', '/api/v1/project')).body);
  t.match(shown.json, { retention_days: 45, attestation_enabled: false, monthly_base_fee_eur: 12.5 });
  const human = await ctl(['project', 'show']);
  t.match(human.stdout, /^retention_days:\s+45$/m);
  const on = await ctl(['project', 'set', '--attestation']);
  t.equal(on.code, 0, on.stderr);
  t.equal((await gw.api('GET', '/api/v1/project')).body.attestation_enabled, true);
  t.match(human.stdout, /^mcp_tools_list:\s+admitted$/m, 'the tools/list mode is shown, default admitted');
  const mode = await ctl(['project', 'set', '--mcp-tools-list', 'upstream']);
  t.equal(mode.code, 0, mode.stderr);
  t.match(mode.stdout, /^mcp_tools_list:\s+upstream$/m);
  t.equal((await gw.api('GET', '/api/v1/project')).body.mcp_tools_list, 'upstream');
});

t.test('project set without a field, or with a bad value, exits 2 and changes nothing', async (t) => {
  const before = (await gw.api('GET', '/api/v1/project')).body;
  const logBefore = await adminLogCount();
  const empty = await ctl(['project', 'set', '--json']);
  t.equal(empty.code, 2);
  t.match(empty.stderr, /nothing to change/);
  t.match(empty.json, { error: { code: 'usage_error' } });
  const bad = await ctl(['project', 'set', '--retention-days', '0']);
  t.equal(bad.code, 2);
  t.match(bad.stderr, /--retention-days/);
  const unknownLevel = await ctl(['project', 'set', '--audit-detail-level', 'everything']);
  t.equal(unknownLevel.code, 2);
  const unknownMode = await ctl(['project', 'set', '--mcp-tools-list', 'everything']);
  t.equal(unknownMode.code, 2);
  const notNumber = await ctl(['project', 'set', '--monthly-base-fee-eur', 'ten', '--json']);
  t.equal(notNumber.code, 2);
  t.match(notNumber.json, { error: { code: 'usage_error', message: /--monthly-base-fee-eur/ } });
  t.same((await gw.api('GET', '/api/v1/project')).body, before, 'settings unchanged');
  t.equal(await adminLogCount(), logBefore, 'nothing written');
});

t.test('stop status, activate, a second activate, lift', async (t) => {
  const idle = await ctl(['stop', 'status', '--json']);
  t.equal(idle.code, 0);
  t.same(idle.json, { active: false, reason: null, activated_at: null, activated_by: null });

  const on = await ctl(['stop', 'activate', '--reason', 'drill', '--json']);
  t.equal(on.code, 0, on.stderr);
  t.match(on.json, { active: true, reason: 'drill', activated_at: String });
  t.equal(on.json.approvals_ended, 0);
  const status = await ctl(['stop', 'status']);
  t.match(status.stdout, /ACTIVE since .* drill/);
  await ctl(['stop', 'lift']);
  const human = await ctl(['stop', 'activate', '--reason', 'drill']);
  t.match(human.stdout, /^Emergency stop: ACTIVE since .* Reason: drill 0 open approval requests ended \(now CANCELLED\)\.$/m);

  const again = await ctl(['stop', 'activate']);
  t.equal(again.code, 1);
  t.match(again.stderr, REQUEST_ID_LINE('project_emergency_stop_already_active'));
  const againJson = await ctl(['stop', 'activate', '--json']);
  t.equal(againJson.code, 1);
  t.match(againJson.json, { error: { code: 'project_emergency_stop_already_active', request_id: String } });
  t.equal((await gw.api('GET', '/api/v1/project/emergency-stop')).body.reason, 'drill', 'the refused set changed nothing');

  const lift = await ctl(['stop', 'lift', '--reason', 'drill over', '--json']);
  t.equal(lift.code, 0, lift.stderr);
  t.equal(lift.json.active, false);
  t.equal((await gw.api('GET', '/api/v1/project/emergency-stop')).body.active, false);
  const liftAgain = await ctl(['stop', 'lift']);
  t.equal(liftAgain.code, 1);
  t.match(liftAgain.stderr, REQUEST_ID_LINE('project_emergency_stop_not_active'));
});

t.test('no login exits 2; an unreachable gateway exits 3 and saves nothing', async (t) => {
  const other = path.join(home, 'none', 'config.json');
  const missing = await ctl(['keys', 'list'], { GATEWAYCTL_CONFIG: other });
  t.equal(missing.code, 2);
  t.match(missing.stderr, /not logged in/);

  const port = await closedPort();
  const login = await ctl(['login', '--url', `http://127.0.0.1:${port}`, '--token', 'x'], { GATEWAYCTL_CONFIG: other });
  t.equal(login.code, 3);
  t.match(login.stderr, /cannot reach the gateway .*ECONNREFUSED/);
  await t.rejects(fs.stat(other), { code: 'ENOENT' });

  // GATEWAY_URL overrides the saved URL.
  const down = await ctl(['stop', 'status', '--json'], { GATEWAY_URL: `http://127.0.0.1:${port}` });
  t.equal(down.code, 3);
  t.match(down.json, { error: { code: 'gateway_unavailable' } });
});

t.test('traces check-chain (old name verify-chain): intact exits 0, a tampered chain exits 1 naming the broken link', async (t) => {
  const traces = await ctl(['traces', 'check-chain', '--json']);
  t.equal(traces.code, 0, traces.stderr);
  t.match(traces.json, { stream: 'traces', intact: true, first_broken: null, checked: Number });
  const admin = await ctl(['traces', 'check-chain', '--stream', 'admin', '--json']);
  t.equal(admin.code, 0);
  t.match(admin.json, { stream: 'admin', intact: true, first_broken: null });
  t.ok(admin.json.checked > 0, 'the admin log has the actions of the tests above');

  // Rewrite history behind the daemon's back (superuser, triggers off for this transaction only).
  await gw.db.begin(async (tx) => {
    await tx`set local session_replication_role = replica`;
    await tx`update admin_log set action = 'tampered' where sequence_num = 2`;
  });
  const broken = await ctl(['traces', 'check-chain', '--stream', 'admin']);
  t.equal(broken.code, 1);
  t.match(broken.stdout, /admin chain BROKEN at sequence 2 .*integrity_hash/);
  const brokenJson = await ctl(['traces', 'check-chain', '--stream', 'admin', '--json']);
  t.equal(brokenJson.code, 1);
  t.match(brokenJson.json, { intact: false, first_broken: { sequence_num: 2 } });
  const old = await ctl(['traces', 'verify-chain', '--stream', 'admin', '--json']);
  t.equal(old.code, 1, 'the old name, traces verify-chain, answers the same');
  t.same(old.json, brokenJson.json);
  const oldHuman = await ctl(['traces', 'verify-chain', '--stream', 'admin']);
  t.equal(oldHuman.stdout, broken.stdout);
  t.match(oldHuman.stderr, /"traces verify-chain" command has been deprecated.*"traces check-chain"/s, 'and says the new name');
});
