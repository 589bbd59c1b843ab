// gatewayctl servers end to end: the compiled CLI against a real gatewayd (loopback upstreams
// allowed) on a throwaway database, and real MCP servers on port 0. Subtests run in order and
// share the one daemon and the servers registered along the way.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ctlWithStdin, runCli, type CliRun } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { SAMPLE_TOOLS, startLegacyMcpServer, startScriptedServer } from '../../helpers/mcp-servers.js';
import { freeLoopbackPort } from '../../helpers/ports.js';

const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '2' } });
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-servers-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

const TOKEN = `upstream-${randomBytes(16).toString('hex')}`;
const HEADER_SECRET = `hdr-${randomBytes(16).toString('hex')}`;
const weatherUp = await startLegacyMcpServer(t, { tools: SAMPLE_TOOLS, auth: { bearer: TOKEN } });
const keyedUp = await startLegacyMcpServer(t, {
  tools: SAMPLE_TOOLS.slice(0, 1),
  auth: { header: { name: 'X-Api-Key', value: HEADER_SECRET } },
});
const scriptedUp = await startScriptedServer(t, { misbehave: 'rpc-error' });

const baseEnv = (url: string): Record<string, string> => ({
  GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
  GATEWAY_URL: url,
  GATEWAY_TOKEN: gw.adminToken,
});

/** Runs gatewayctl with a clean environment, logged in through GATEWAY_URL and GATEWAY_TOKEN. */
function ctl(args: string[], url = gw.url): Promise<CliRun> {
  return runCli(args, home, baseEnv(url));
}

/** Like ctl, with `input` on stdin (runCli gives the child no stdin). */

async function secretFile(name: string, content: string): Promise<string> {
  const file = path.join(home, name);
  await fs.writeFile(file, content, { mode: 0o600 });
  return file;
}

const count = async (table: 'mcp_servers' | 'mcp_tools' | 'admin_log'): Promise<number> =>
  Number((await gw.db`select count(*)::int as n from ${gw.db(table)}`)[0]!.n);
const statusInDb = async (id: string): Promise<string | undefined> =>
  (await gw.db`select status from mcp_servers where id = ${id}`)[0]?.status as string | undefined;
const REQUEST_ID_LINE = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');
const esc = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

let weather = '';
let keyed = '';
let scripted = '';

t.test('register: PENDING_APPROVAL, never scanned, nothing sent to the server; a duplicate name exits 1', async (t) => {
  const created = await ctl(['servers', 'register', '--name', 'weather', '--url', weatherUp.url, '--description', 'demo', '--json']);
  t.equal(created.code, 0, created.stderr);
  t.match(created.json, {
    id: String,
    name: 'weather',
    server_url: weatherUp.url,
    description: 'demo',
    connector_type: 'custom',
    is_proxied: false,
    auth_method: 'none',
    status: 'PENDING_APPROVAL',
    scan_state: 'never',
    tool_count: 0,
  });
  weather = created.json.id;
  t.same(created.json, (await gw.api('GET', `/api/v1/mcp/servers/${weather}`)).body, '--json is the API record');
  t.equal(weatherUp.connections(), 0, 'registering sends nothing to the server');

  const human = await ctl(['servers', 'register', '--name', 'scripted', '--url', scriptedUp.url, '--connector-type', 'rpc', '--proxied']);
  t.equal(human.code, 0, human.stderr);
  const line = new RegExp(
    `^Registered MCP server (\\S+) "scripted" \\(PENDING_APPROVAL, never scanned\\): ${esc(scriptedUp.url)}\\.$`,
  ).exec(human.stdout.trim());
  t.ok(line, human.stdout);
  scripted = line?.[1] ?? '';
  t.match((await gw.db`select connector_type, is_proxied from mcp_servers where id = ${scripted}`)[0], {
    connector_type: 'rpc',
    is_proxied: true,
  });

  keyed = (await ctl(['servers', 'register', '--name', 'keyed', '--url', keyedUp.url, '--json'])).json.id;
  t.ok(keyed);

  const before = await count('admin_log');
  const dup = await ctl(['servers', 'register', '--name', ' WEATHER ', '--url', 'https://other.example.com/mcp']);
  t.equal(dup.code, 1);
  t.match(dup.stderr, REQUEST_ID_LINE('mcp_server_name_conflict'));
  t.equal(await count('mcp_servers'), 3, 'the duplicate wrote nothing');
  t.equal(await count('admin_log'), before);
});

t.test('list and get: a table, key/value lines and --json', async (t) => {
  const list = await ctl(['servers', 'list', '--json']);
  t.equal(list.code, 0, list.stderr);
  t.same(
    list.json.servers.map((s: { id: string }) => s.id),
    [weather, scripted, keyed],
  );
  const table = await ctl(['servers', 'list']);
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, /^ID\s+NAME\s+STATUS\s+AUTH\s+SCAN\s+TOOLS\s+NOT ADMITTED\s+URL\s+PROXY URL$/m);
  const proxyUrl = `${gw.url}/api/v1/mcp/proxy/${weather}`;
  t.match(
    table.stdout,
    new RegExp(`^${weather}\\s+weather\\s+PENDING_APPROVAL\\s+none\\s+never\\s+0\\s+0\\s+${esc(weatherUp.url)}\\s+${esc(proxyUrl)}$`, 'm'),
  );
  t.equal(list.json.servers[0].proxy_url, proxyUrl, '--json carries proxy_url');

  const shown = await ctl(['servers', 'get', weather]);
  t.equal(shown.code, 0, shown.stderr);
  t.match(shown.stdout, /^status:\s+PENDING_APPROVAL$/m);
  t.match(shown.stdout, new RegExp(`^server_url:\\s+${esc(weatherUp.url)}$`, 'm'));
  t.match(shown.stdout, new RegExp(`^proxy_url:\\s+${esc(proxyUrl)}$`, 'm'), 'get prints the proxy URL');
  const missing = await ctl(['servers', 'get', 'nope', '--json']);
  t.equal(missing.code, 1);
  t.match(missing.json, { error: { code: 'not_found', status: 404 } });
});

t.test('scan without the credential: scanned false, reason, detail and target printed, exit 1', async (t) => {
  const human = await ctl(['servers', 'scan', weather]);
  t.equal(human.code, 1);
  t.match(human.stdout, new RegExp(`^Scan of MCP server ${weather} failed: bad_status\\.$`, 'm'));
  t.match(human.stdout, /^reason:\s+bad_status$/m);
  t.match(human.stdout, /^detail:\s+\S.*401/m);
  t.match(human.stdout, new RegExp(`^target:\\s+${esc(weatherUp.url)}$`, 'm'));
  const json = await ctl(['servers', 'scan', weather, '--json']);
  t.equal(json.code, 1);
  t.match(json.json, { scanned: false, reason: 'bad_status', detail: String, target: weatherUp.url, server_status: 'PENDING_APPROVAL' });
  t.equal(await statusInDb(weather), 'PENDING_APPROVAL', 'a scan never changes status');
});

t.test('update takes the token from a file; it never appears in output, get --json or the admin log; scan then succeeds', async (t) => {
  const file = await secretFile('weather.token', `${TOKEN}\n`);
  const updated = await ctl(['servers', 'update', weather, '--bearer-token-file', file, '--description', 'forecasts']);
  t.equal(updated.code, 0, updated.stderr);
  t.equal(
    updated.stdout.trim(),
    `Updated MCP server ${weather} "weather": description, auth_method, auth_config (sign-in bearer, credential stored).`,
  );
  const asJson = await ctl(['servers', 'update', weather, '--bearer-token-file', file, '--json']);
  t.equal(asJson.code, 0, asJson.stderr);
  t.match(asJson.json, { id: weather, auth_method: 'bearer', description: 'forecasts' });
  const shown = await ctl(['servers', 'get', weather, '--json']);
  t.equal(shown.json.auth_method, 'bearer');
  t.notOk('auth_config' in shown.json, 'the credential is never returned');
  for (const run of [updated, asJson, shown]) {
    t.notOk(run.stdout.includes(TOKEN) || run.stderr.includes(TOKEN), 'the token is not printed');
  }
  const logged = await gw.db`select details::text as d from admin_log where target_id = ${weather}`;
  t.notOk(
    logged.some((r) => String(r.d).includes(TOKEN)),
    'nor logged',
  );

  const scan = await ctl(['servers', 'scan', weather]);
  t.equal(scan.code, 0, scan.stderr);
  t.match(scan.stdout, new RegExp(`^Scanned MCP server ${weather}: 3 tools\\.$`, 'm'));
  t.match(scan.stdout, /^tools_new:\s+3$/m);
  t.match(scan.stdout, /^tools_unreleased:\s+3$/m);
  t.match(scan.stdout, /^server_status:\s+PENDING_APPROVAL$/m);
  t.notOk(scan.stdout.includes(TOKEN));
  t.ok(
    weatherUp.seen.some((r) => r.headers.authorization === `Bearer ${TOKEN}`),
    "the file's token, trimmed, reached the server",
  );
});

t.test('tools: oldest first, the rule in force apart from the proposal of a waiting tool, admission in words, and --json', async (t) => {
  const json = await ctl(['servers', 'tools', weather, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(
    json.json.tools.map((x: { name: string }) => x.name),
    ['get_weather', 'delete_file', 'ping'],
    'in the order the scan found them',
  );
  const proposals = Object.fromEntries(
    json.json.tools.map((x: { name: string; proposed_rule: string | null }) => [x.name, x.proposed_rule]),
  );
  t.ok(
    Object.values(proposals).every((p) => p !== null),
    'every tool waits for admission, with a proposal',
  );
  // Admission is another command's business; set its record directly to see all three words.
  await gw.db`update mcp_tools set approved_hash = current_fingerprint, approved_at = now() where server_id = ${weather} and name = 'get_weather'`;
  await gw.db`update mcp_tools set approved_hash = 'sha256:older', approved_at = now() where server_id = ${weather} and name = 'delete_file'`;
  const table = await ctl(['servers', 'tools', weather]);
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, /^NAME\s+ACTION\s+RISK\s+RULE\s+PROPOSAL\s+ADMISSION\s+FINDINGS$/m);
  t.notMatch(table.stdout, /PROPOSED RULE/, 'no column a reader takes for the rule in force holds a proposal');
  const word: Record<string, string> = { get_weather: 'admitted', delete_file: 'changed', ping: 'not admitted' };
  // get_weather is admitted without a server-wide rule (set directly): its calls are held.
  const rule: Record<string, string> = { get_weather: 'REQUIRE_APPROVAL \\(no rule\\)', delete_file: '-', ping: '-' };
  const proposal = (name: string): string => (name === 'get_weather' ? '-' : `${proposals[name]}(?: \\(template\\))?`);
  for (const tool of json.json.tools as { name: string; action: string; risk_level: string; poisoning_findings: unknown[] }[]) {
    t.match(
      table.stdout,
      new RegExp(
        `^${tool.name}\\s+${esc(tool.action)}\\s+${esc(tool.risk_level)}\\s+${rule[tool.name]}\\s+${proposal(tool.name)}\\s+${word[tool.name]}\\s+${tool.poisoning_findings.length}$`,
        'm',
      ),
      tool.name,
    );
  }
  const after = await ctl(['servers', 'tools', weather, '--json']);
  t.same(
    after.json.tools.map((x: { matches_approved: boolean | null; proposed_rule: string | null }) => [
      x.matches_approved,
      x.proposed_rule === null,
    ]),
    [
      [true, true],
      [false, false],
      [null, false],
    ],
    'the admitted tool has no proposal',
  );

  await gw.api('POST', `/api/v1/mcp/servers/${weather}/tools/${after.json.tools[0].id}/verdict`, { body: { action: 'DENY' } });
  const ruled = await ctl(['servers', 'tools', weather]);
  t.match(ruled.stdout, /^get_weather\s+\S+\s+\S+\s+DENY\s+-\s+admitted\s+\d+$/m, 'the rule in force is the server-wide rule');
});

t.test('a token from stdin (--bearer-token -) and a header from a file also work, unprinted', async (t) => {
  const piped = await ctlWithStdin(['servers', 'update', weather, '--bearer-token', '-', '--json'], `${TOKEN}\n`, home, baseEnv(gw.url));
  t.equal(piped.code, 0, piped.stderr);
  t.equal(piped.json.auth_method, 'bearer');
  t.notOk(piped.stdout.includes(TOKEN) || piped.stderr.includes(TOKEN));
  t.equal((await ctl(['servers', 'scan', weather, '--json'])).json.scanned, true, 'the piped token signs in');

  const file = await secretFile('keyed.value', HEADER_SECRET);
  const header = await ctl(['servers', 'update', keyed, '--header-name', 'X-Api-Key', '--header-value-file', file]);
  t.equal(header.code, 0, header.stderr);
  t.match(header.stdout, /auth_method, auth_config \(sign-in header, credential stored\)\.$/m);
  const scan = await ctl(['servers', 'scan', keyed, '--json']);
  t.equal(scan.code, 0, scan.stderr);
  t.match(scan.json, { scanned: true, tool_count: 1, tools_new: 1 });
  const shown = await ctl(['servers', 'get', keyed, '--json']);
  for (const run of [header, scan, shown]) t.notOk(run.stdout.includes(HEADER_SECRET) || run.stderr.includes(HEADER_SECRET));
  t.ok(keyedUp.seen.some((r) => r.headers['x-api-key'] === HEADER_SECRET));
});

t.test('a scan that cannot run exits 1 with the daemon code and sends nothing; a failing server exits 1', async (t) => {
  const set = await ctl(['servers', 'update', scripted, '--auth-method', 'bearer']);
  t.equal(set.code, 0, set.stderr);
  const human = await ctl(['servers', 'scan', scripted]);
  t.equal(human.code, 1);
  t.match(human.stderr, REQUEST_ID_LINE('auth_token_missing'));
  t.equal(human.stdout, '');
  const json = await ctl(['servers', 'scan', scripted, '--json']);
  t.equal(json.code, 1);
  t.match(json.json, { error: { code: 'auth_token_missing', status: 400, request_id: String } });
  t.equal(scriptedUp.connections(), 0, 'nothing was sent to the server');
  t.match((await ctl(['servers', 'get', scripted, '--json'])).json, { scan_state: 'not_run', scan_reason: 'auth_token_missing' });

  const cleared = await ctl(['servers', 'update', scripted, '--clear-auth', '--json']);
  t.equal(cleared.code, 0, cleared.stderr);
  t.equal(cleared.json.auth_method, 'none');
  t.equal((await gw.db`select auth_config from mcp_servers where id = ${scripted}`)[0]!.auth_config, null, 'the credential is dropped');
  const failed = await ctl(['servers', 'scan', scripted, '--json']);
  t.equal(failed.code, 1);
  t.match(failed.json, { scanned: false, reason: 'rpc_error', target: scriptedUp.url });
  t.ok(scriptedUp.connections() > 0);
});

t.test('pause is refused while pending (exit 1, nothing changed); an ACTIVE server pauses', async (t) => {
  const logBefore = await count('admin_log');
  const human = await ctl(['servers', 'pause', weather]);
  t.equal(human.code, 1);
  t.match(human.stderr, REQUEST_ID_LINE('mcp_server_transition_invalid'));
  t.equal(human.stdout, '');
  const json = await ctl(['servers', 'pause', weather, '--json']);
  t.equal(json.code, 1);
  t.match(json.json, { error: { code: 'mcp_server_transition_invalid', status: 409, request_id: String } });
  t.equal(await statusInDb(weather), 'PENDING_APPROVAL', 'status unchanged');
  t.equal(await count('admin_log'), logBefore, 'nothing written');

  // Activation is another command's business; set the status directly.
  await gw.db`update mcp_servers set status = 'ACTIVE' where id = ${keyed}`;
  const paused = await ctl(['servers', 'pause', keyed]);
  t.equal(paused.code, 0, paused.stderr);
  t.equal(paused.stdout.trim(), `Paused MCP server ${keyed} "keyed": now BLOCKED.`);
  t.equal(await statusInDb(keyed), 'BLOCKED');
});

t.test('reject removes a pending server; delete removes one with its tools', async (t) => {
  const refused = await ctl(['servers', 'reject', keyed]);
  t.equal(refused.code, 1, 'a BLOCKED server cannot be rejected');
  t.match(refused.stderr, REQUEST_ID_LINE('mcp_server_transition_invalid'));
  t.equal(await statusInDb(keyed), 'BLOCKED');

  const rejected = await ctl(['servers', 'reject', scripted, '--json']);
  t.equal(rejected.code, 0, rejected.stderr);
  t.same(rejected.json, { id: scripted, status: 'REJECTED', removed: true });
  t.equal(await statusInDb(scripted), undefined);
  t.equal((await ctl(['servers', 'get', scripted])).code, 1);

  t.equal(Number((await gw.db`select count(*)::int as n from mcp_tools where server_id = ${weather}`)[0]!.n), 3);
  const deleted = await ctl(['servers', 'delete', weather]);
  t.equal(deleted.code, 0, deleted.stderr);
  t.equal(deleted.stdout.trim(), `Deleted MCP server ${weather}.`);
  t.equal(await statusInDb(weather), undefined);
  t.equal(Number((await gw.db`select count(*)::int as n from mcp_tools where server_id = ${weather}`)[0]!.n), 0, 'its tools went with it');
  const again = await ctl(['servers', 'delete', weather, '--json']);
  t.equal(again.code, 1);
  t.match(again.json, { error: { code: 'not_found', status: 404 } });
  t.same(
    (await ctl(['servers', 'list', '--json'])).json.servers.map((s: { id: string }) => s.id),
    [keyed],
  );
});

t.test('bad flags exit 2 before any request (the gateway URL points where nothing listens)', async (t) => {
  const dead = await deadUrl();
  const control = await ctl(['servers', 'list'], dead);
  t.equal(control.code, 3, 'a request there would exit 3');
  const token = await secretFile('ok.token', 'tok');
  const empty = await secretFile('empty.token', '\n');
  const SECRET = `typed-${randomBytes(8).toString('hex')}`;
  const cases: [string[], RegExp][] = [
    [['register', '--name', 'x', '--url', 'ftp://example.com/mcp'], /--url/],
    [['register', '--name', 'x', '--url', 'https://user:pw@example.com/mcp'], /--url: credentials in the URL are not allowed/],
    [['register', '--name', '   ', '--url', 'https://example.com/mcp'], /--name: must not be empty/],
    [['register', '--url', 'https://example.com/mcp'], /name/],
    [['update', 'ID'], /nothing to change/],
    [['update', 'ID', '--name', ''], /--name: must not be empty/],
    [['update', 'ID', '--auth-method', 'no such'], /--auth-method/],
    [['update', 'ID', '--bearer-token', SECRET], /--bearer-token takes only "-"/],
    [['update', 'ID', '--bearer-token-file', path.join(home, SECRET)], /--bearer-token-file: cannot open the file \(ENOENT\)/],
    [['update', 'ID', '--bearer-token-file', empty], /--bearer-token-file: the file is empty/],
    [['update', 'ID', '--bearer-token-file', token, '--bearer-token', '-'], /not both/],
    [['update', 'ID', '--bearer-token-file', token, '--auth-method', 'header'], /goes with --auth-method bearer/],
    [['update', 'ID', '--header-name', 'X-Api-Key'], /--header-name and --header-value-file go together/],
    [['update', 'ID', '--header-name', 'X-Api-Key', '--header-value-file', token, '--bearer-token-file', token], /not both/],
    [['update', 'ID', '--clear-auth', '--bearer-token-file', token], /--clear-auth takes no other sign-in flag/],
    [['scan'], /ID/],
    [['tools', 'ID', '--no-such-flag'], /no-such-flag/],
  ];
  for (const [args, message] of cases) {
    const run = await ctl(['servers', ...args], dead);
    t.equal(run.code, 2, args.join(' '));
    t.match(run.stderr, message, args.join(' '));
    t.notOk(run.stderr.includes(SECRET) || run.stdout.includes(SECRET), `${args.join(' ')}: nothing typed is echoed`);
  }
  const json = await ctl(['servers', 'update', 'ID', '--bearer-token', SECRET, '--json'], dead);
  t.equal(json.code, 2);
  t.match(json.json, { error: { code: 'usage_error' } });
  t.notOk(json.stdout.includes(SECRET) || json.stderr.includes(SECRET));
});

/** A URL on a port that was free a moment ago: connecting there is refused. */
const deadUrl = async (): Promise<string> => `http://127.0.0.1:${await freeLoopbackPort()}`;
