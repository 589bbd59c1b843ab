// gatewayctl admission end to end: servers approve, resume, release and verdict, and policies mcp,
// the compiled CLI against a real gatewayd (loopback upstreams allowed) on a throwaway database and
// a real MCP server on port 0. Subtests run in order and share the daemon and its servers.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, type CliRun } from '../helpers/cli.js';
import { startTestGateway } from '../helpers/gateway.js';
import { SAMPLE_TOOLS, manyTools, startLegacyMcpServer } from '../helpers/mcp-servers.js';
import { freeLoopbackPort } from '../helpers/ports.js';

const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '2' } });
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-admission-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

// A copy the upstream serves by reference: changing a description here changes the next tools/list.
const served = SAMPLE_TOOLS.map((x) => ({ ...x }));
const weatherUp = await startLegacyMcpServer(t, { tools: served });
const otherUp = await startLegacyMcpServer(t, { tools: manyTools(2) });

interface Tool {
  id: string;
  name: string;
  action: string;
  risk_level: string;
  proposed_rule: string | null;
  proposed_rule_source: string | null;
  current_fingerprint: string;
  approved_hash: string | null;
  matches_approved: boolean | null;
  policy_action: string | null;
  poisoning_findings: unknown[];
}

function ctl(args: string[], options: { url?: string; token?: string } = {}): Promise<CliRun> {
  return runCli(args, home, {
    GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
    GATEWAY_URL: options.url ?? gw.url,
    GATEWAY_TOKEN: options.token ?? gw.adminToken,
  });
}

/** Every table admission and rules touch, for "a refusal writes nothing". */
const state = async () => ({
  servers: await gw.db`select id, status, updated_at from mcp_servers order by id`,
  tools: await gw.db`select id, approved_hash, approved_at, is_auto_generated from mcp_tools order by id`,
  policies: await gw.db`select * from mcp_policies order by id`,
  releases: (await gw.db`select count(*)::int as n from mcp_releases`)[0]!.n,
  admin: (await gw.db`select count(*)::int as n from admin_log`)[0]!.n,
  traces: (await gw.db`select count(*)::int as n from traces`)[0]!.n,
});

async function registered(name: string, url: string): Promise<string> {
  const server = await gw.api('POST', '/api/v1/mcp/servers', { body: { name, server_url: url } });
  const scan = await gw.api('POST', `/api/v1/mcp/servers/${server.body.id}/scan`);
  if (scan.body?.scanned !== true) throw new Error(`scan failed: ${scan.text}`);
  return server.body.id as string;
}

const toolsOf = async (id: string): Promise<Tool[]> => (await gw.api('GET', `/api/v1/mcp/servers/${id}/tools`)).body.tools;
const byName = async (id: string, name: string): Promise<Tool> => (await toolsOf(id)).find((x) => x.name === name)!;
const statusOf = async (id: string): Promise<string> => (await gw.api('GET', `/api/v1/mcp/servers/${id}`)).body.status;
const REFUSAL = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');
const short = (fingerprint: string): string => fingerprint.slice('sha256:'.length, 'sha256:'.length + 12);

const weather = await registered('weather', weatherUp.url);
const other = await registered('other', otherUp.url);
// The scan proposes a rule for every tool; a tool without one is the daemon's other business, so
// the record is set directly to see how approve treats it.
await gw.db`update mcp_tools set proposed_rule = null, proposed_rule_source = null where server_id = ${weather} and name = 'ping'`;

t.test('approve without flags shows the proposals and changes nothing', async (t) => {
  const tools = await toolsOf(weather);
  const before = await state();
  const run = await ctl(['servers', 'approve', weather]);
  t.equal(run.code, 0, run.stderr);
  const proxyUrl = `${gw.url}/api/v1/mcp/proxy/${weather}`;
  t.match(
    run.stdout,
    new RegExp(`^MCP server ${weather} "weather": PENDING_APPROVAL, last scan succeeded, 3 tools; proxy URL ${proxyUrl}\\.$`, 'm'),
  );
  t.match(run.stdout, /^TOOL\s+ACTION\s+RISK\s+PROPOSED RULE\s+SOURCE\s+FINDINGS\s+FINGERPRINT\s+RULE IF ACCEPTED$/m);
  for (const tool of tools) {
    const proposed = tool.proposed_rule === null ? '-\\s+-' : `${tool.proposed_rule}\\s+${tool.proposed_rule_source}`;
    const rule = tool.proposed_rule ?? 'REQUIRE_APPROVAL \\(no proposal\\)';
    t.match(
      run.stdout,
      new RegExp(
        `^${tool.name}\\s+${tool.action}\\s+${tool.risk_level}\\s+${proposed}\\s+\\S+\\s+${short(tool.current_fingerprint)}\\s+${rule}$`,
        'm',
      ),
      tool.name,
    );
  }
  t.match(run.stdout, /^ping\s.*REQUIRE_APPROVAL \(no proposal\)$/m, 'a tool without a proposal says so');
  t.match(
    run.stdout,
    new RegExp(`^Nothing sent\\. To approve with these rules: gatewayctl servers approve ${weather} --accept-proposals`, 'm'),
  );

  const json = await ctl(['servers', 'approve', weather, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, { id: weather, status: 'PENDING_APPROVAL', proxy_url: proxyUrl, sent: false, release: null });
  t.same(
    json.json.tools.map((x: { name: string; rule: string; rule_from: string }) => [x.name, x.rule, x.rule_from]),
    tools.map((x) => [x.name, x.proposed_rule ?? 'REQUIRE_APPROVAL', x.proposed_rule === null ? 'no_proposal' : 'proposal']),
  );
  t.same(
    json.json.tools.map((x: { fingerprint: string }) => x.fingerprint),
    tools.map((x) => x.current_fingerprint),
  );
  t.same(await state(), before, 'nothing written');
  t.equal(await statusOf(weather), 'PENDING_APPROVAL');
});

t.test('a project key is refused with mcp_release_author_unresolved (exit 1), nothing written', async (t) => {
  const projectAdmin = (await gw.api('POST', '/api/v1/keys', { body: { name: 'automation', role: 'admin' } })).body.key as string;
  const before = await state();
  const run = await ctl(['servers', 'approve', weather, '--accept-proposals'], { token: projectAdmin });
  t.equal(run.code, 1);
  t.match(run.stderr, REFUSAL('mcp_release_author_unresolved'));
  t.notMatch(run.stdout, /^Approved/m);
  const json = await ctl(['servers', 'approve', weather, '--accept-proposals', '--json'], { token: projectAdmin });
  t.equal(json.code, 1);
  t.match(json.json, { error: { code: 'mcp_release_author_unresolved', status: 403, request_id: String } });
  t.same(await state(), before, 'nothing written');
});

t.test('a --rule naming no tool of the scan is refused by the daemon (mcp_release_tool_unknown), nothing written', async (t) => {
  const before = await state();
  const run = await ctl(['servers', 'approve', weather, '--accept-proposals', '--rule', 'no_such_tool=DENY']);
  t.equal(run.code, 1);
  t.match(run.stderr, REFUSAL('mcp_release_tool_unknown'));
  t.match(run.stderr, /no_such_tool/);
  const partial = await ctl(['servers', 'approve', weather, '--rule', 'ping=DENY', '--json']);
  t.equal(partial.code, 1, 'without --accept-proposals every tool needs its --rule');
  t.match(partial.json, { error: { code: 'mcp_release_tool_missing', message: /delete_file.*get_weather|get_weather.*delete_file/ } });
  t.same(await state(), before);
});

t.test('approve --accept-proposals with an override: ACTIVE, every tool admitted with the rule shown', async (t) => {
  const tools = await toolsOf(weather);
  const run = await ctl(['servers', 'approve', weather, '--accept-proposals', '--rule', 'delete_file=DENY']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, /^TOOL\s+.*\s+RULE SENT$/m);
  t.match(run.stdout, /^delete_file\s.*\sDENY \(--rule\)$/m);
  t.match(run.stdout, /^ping\s.*\sREQUIRE_APPROVAL \(no proposal\)$/m);
  const approved = new RegExp(`^Approved MCP server ${weather} "weather": now ACTIVE; 3 tools admitted \\(release (\\S+)\\)\\.$`, 'm').exec(
    run.stdout,
  );
  t.ok(approved, run.stdout);
  t.match(
    run.stdout,
    new RegExp(
      `^Proxy URL: ${gw.url}/api/v1/mcp/proxy/${weather} \\(gatewayctl connect ${weather} configures an MCP host with it\\)\\.$`,
      'm',
    ),
    'approve prints where hosts reach the server',
  );
  t.equal(await statusOf(weather), 'ACTIVE');
  const expected: Record<string, string> = { delete_file: 'DENY', ping: 'REQUIRE_APPROVAL' };
  for (const tool of await toolsOf(weather)) {
    t.match(
      tool,
      { matches_approved: true, policy_action: expected[tool.name] ?? tools.find((x) => x.id === tool.id)!.proposed_rule },
      tool.name,
    );
  }
  const release = (await gw.db`select id, kind from mcp_releases where server_id = ${weather}`)[0];
  t.match(release, { id: approved?.[1], kind: 'approve' });

  const json = await ctl(['servers', 'approve', other, '--accept-proposals', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, { id: other, status: 'ACTIVE', sent: true, release: { release_id: String } });
  t.same(json.json.release.released.map((r: { tool_name: string }) => r.tool_name).sort(), ['tool_00', 'tool_01']);
  t.ok(json.json.tools.every((x: { rule_from: string }) => x.rule_from === 'proposal'));
});

t.test('approving again is refused with mcp_server_transition_invalid (exit 1), nothing written', async (t) => {
  const before = await state();
  const run = await ctl(['servers', 'approve', weather, '--accept-proposals']);
  t.equal(run.code, 1);
  t.match(run.stderr, REFUSAL('mcp_server_transition_invalid'));
  const shown = await ctl(['servers', 'approve', weather]);
  t.equal(shown.code, 0, 'the table alone is still shown');
  t.match(shown.stdout, /^Nothing sent: the server is ACTIVE, and only a PENDING_APPROVAL server is approved/m);
  t.same(await state(), before);
});

t.test('resume: a paused server becomes ACTIVE again; resuming an ACTIVE one is refused', async (t) => {
  t.equal((await gw.api('POST', `/api/v1/mcp/servers/${weather}/pause`)).status, 200);
  const run = await ctl(['servers', 'resume', weather]);
  t.equal(run.code, 0, run.stderr);
  t.equal(run.stdout.trim(), `Resumed MCP server ${weather} "weather": now ACTIVE.`);
  t.equal(await statusOf(weather), 'ACTIVE');

  const before = await state();
  const again = await ctl(['servers', 'resume', weather, '--json']);
  t.equal(again.code, 1);
  t.match(again.json, { error: { code: 'mcp_server_transition_invalid', status: 409 } });
  t.same(await state(), before);

  await gw.api('POST', `/api/v1/mcp/servers/${other}/pause`);
  const json = await ctl(['servers', 'resume', other, '--json']);
  t.equal(json.code, 0, json.stderr);
  t.match(json.json, { id: other, status: 'ACTIVE', name: 'other' });
});

t.test('release: a changed tool stays blocked until released with the fingerprint just read', async (t) => {
  served[0]!.description = 'Current weather for a city, in degrees Celsius.';
  t.equal((await gw.api('POST', `/api/v1/mcp/servers/${weather}/scan`)).body.scanned, true);
  const changed = await byName(weather, 'get_weather');
  t.equal(changed.matches_approved, false, 'the rescan shows the change');

  const before = await state();
  const already = await ctl(['servers', 'release', weather, '--tool', 'ping']);
  t.equal(already.code, 1);
  t.match(already.stderr, REFUSAL('mcp_release_already_released'));
  const unknown = await ctl(['servers', 'release', weather, '--tool', 'no_such_tool', '--json']);
  t.equal(unknown.code, 1);
  t.match(unknown.json, { error: { code: 'mcp_release_tool_unknown', status: 400 } });
  t.same(await state(), before, 'refusals write nothing');

  const run = await ctl(['servers', 'release', weather, '--tool', 'get_weather=REQUIRE_APPROVAL']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.stdout, new RegExp(`^Released 1 tools of MCP server ${weather} \\(release \\S+\\)\\.$`, 'm'));
  t.match(run.stdout, new RegExp(`^get_weather\\s+REQUIRE_APPROVAL\\s+${short(changed.current_fingerprint)}$`, 'm'));
  t.match(await byName(weather, 'get_weather'), {
    matches_approved: true,
    policy_action: 'REQUIRE_APPROVAL',
    approved_hash: changed.current_fingerprint,
  });

  const nothing = await ctl(['servers', 'release', weather, '--all-changed']);
  t.equal(nothing.code, 1, 'nothing new or changed: the daemon refuses the empty list');
  t.match(nothing.stderr, /No tool of MCP server \S+ is new or changed\./);
  t.match(nothing.stderr, REFUSAL('mcp_release_tools_required'));
});

t.test("release --all-changed admits every changed tool with its proposal; --json is the daemon's reply", async (t) => {
  served[1]!.description = 'Deletes a file from the workspace.';
  served[2]!.description = 'Checks that the server answers.';
  await gw.api('POST', `/api/v1/mcp/servers/${weather}/scan`);
  const tools = await toolsOf(weather);
  const run = await ctl(['servers', 'release', weather, '--all-changed', '--tool', 'ping=ALLOW', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.json, { release_id: String });
  const proposal = tools.find((x) => x.name === 'delete_file')!.proposed_rule;
  t.same(run.json.released.map((r: { tool_name: string; rule: string }) => [r.tool_name, r.rule]).sort(), [
    ['delete_file', proposal],
    ['ping', 'ALLOW'],
  ]);
  t.ok((await toolsOf(weather)).every((x) => x.matches_approved === true));
});

t.test('verdict: by name or id, sets the server-wide rule and never changes admission', async (t) => {
  const tool = await byName(weather, 'delete_file');
  const run = await ctl(['servers', 'verdict', weather, 'delete_file', '--action', 'ALLOW', '--reason', 'sandboxed']);
  t.equal(run.code, 0, run.stderr);
  t.equal(
    run.stdout.trim(),
    `Set the server-wide rule of delete_file (${tool.id}) on MCP server ${weather} to ALLOW (sandboxed); admission unchanged.`,
  );
  t.match(await byName(weather, 'delete_file'), { policy_action: 'ALLOW', matches_approved: true, approved_hash: tool.approved_hash });

  const json = await ctl(['servers', 'verdict', weather, tool.id, '--action', 'DENY', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(json.json, { tool_id: tool.id, tool_name: 'delete_file', policy_action: 'DENY', reason: null });
  const serverWide = await gw.db`select action from mcp_policies where mcp_tool_id = ${tool.id} and agent_id is null`;
  t.same(
    serverWide.map((r) => r.action),
    ['DENY'],
    'the verdict replaced the server-wide rules',
  );

  const before = await state();
  const missing = await ctl(['servers', 'verdict', weather, 'no_such_tool', '--action', 'DENY']);
  t.equal(missing.code, 1);
  t.match(missing.stderr, REFUSAL('not_found'));
  t.same(await state(), before);
});

t.test('policies mcp add, list and remove; an agent rule that loosens is refused, nothing written', async (t) => {
  const tool = await byName(weather, 'get_weather');
  const agentRule = await ctl(['policies', 'mcp', 'add', '--action', 'DENY', '--agent', 'bot-1', '--reason', 'contractor']);
  t.equal(agentRule.code, 0, agentRule.stderr);
  const added = /^Added MCP rule (\S+) \(DENY for every tool, agent bot-1\)\.$/.exec(agentRule.stdout.trim());
  t.ok(added, agentRule.stdout);
  const toolRule = await ctl(['policies', 'mcp', 'add', '--action', 'REQUIRE_APPROVAL', '--tool', tool.id, '--agent', 'bot-2', '--json']);
  t.equal(toolRule.code, 0, toolRule.stderr);
  t.match(toolRule.json, {
    id: String,
    action: 'REQUIRE_APPROVAL',
    mcp_tool_id: tool.id,
    agent_id: 'bot-2',
    server_id: weather,
    is_auto_generated: false,
  });

  const before = await state();
  const loosening = await ctl(['policies', 'mcp', 'add', '--action', 'ALLOW', '--agent', 'bot-1']);
  t.equal(loosening.code, 1);
  t.match(loosening.stderr, REFUSAL('mcp_agent_rule_ineffective'));
  const unknownTool = await ctl(['policies', 'mcp', 'add', '--action', 'DENY', '--tool', 'nope', '--json']);
  t.equal(unknownTool.code, 1);
  t.match(unknownTool.json, { error: { code: 'not_found', status: 404 } });
  t.same(await state(), before);

  const list = await ctl(['policies', 'mcp', 'list', '--json']);
  t.equal(list.code, 0, list.stderr);
  t.same(list.json, (await gw.api('GET', '/api/v1/mcp/policies')).body, '--json is the API list');
  t.ok(list.json.policies.some((p: { id: string }) => p.id === added?.[1]));
  const table = await ctl(['policies', 'mcp', 'list']);
  t.equal(table.code, 0, table.stderr);
  t.match(table.stdout, /^ID\s+ACTION\s+TOOL\s+AGENT\s+SERVER\s+AUTO\s+CREATED BY\s+REASON$/m);
  t.match(table.stdout, new RegExp(`^${added?.[1]}\\s+DENY\\s+-\\s+bot-1\\s+-\\s+no\\s+\\S+\\s+contractor$`, 'm'));
  t.match(
    table.stdout,
    // Names beside the ids: the tool and the server by name (cut to 40 characters); bot-2 names no registered agent.
    new RegExp(
      `^${toolRule.json.id}\\s+REQUIRE_APPROVAL\\s+get_weather \\(${tool.id}\\)\\s+bot-2\\s+weather \\(${weather.slice(0, 10)}\\S*\\s+no\\s+\\S+\\s+-$`,
      'm',
    ),
  );

  const removed = await ctl(['policies', 'mcp', 'remove', added![1]!]);
  t.equal(removed.code, 0, removed.stderr);
  t.equal(removed.stdout.trim(), `Removed MCP rule ${added![1]}.`);
  t.equal((await gw.db`select count(*)::int as n from mcp_policies where id = ${added![1]!}`)[0]!.n, 0);
  const again = await ctl(['policies', 'mcp', 'remove', added![1]!, '--json']);
  t.equal(again.code, 1);
  t.match(again.json, { error: { code: 'not_found', status: 404 } });
  const traces =
    await gw.db`select action_name from traces where trace_type = 'POLICY_CHANGE' and action_name like 'mcp.policy.%' order by sequence_num`;
  t.same(
    traces.map((r) => r.action_name),
    ['mcp.policy.create', 'mcp.policy.create', 'mcp.policy.delete'],
  );
});

t.test('bad flags exit 2 before any request (the gateway URL points where nothing listens)', async (t) => {
  const dead = await deadUrl();
  t.equal((await ctl(['servers', 'resume', 'ID'], { url: dead })).code, 3, 'a request there would exit 3');
  const cases: [string[], RegExp][] = [
    [['servers', 'approve'], /ID/],
    [['servers', 'approve', 'ID', '--rule', 'get_weather'], /--rule get_weather: expected TOOL=RULE/],
    [
      ['servers', 'approve', 'ID', '--rule', 'get_weather=MAYBE'],
      /--rule get_weather=MAYBE: must be one of ALLOW, LOG_ONLY, REQUIRE_APPROVAL, DENY/,
    ],
    [['servers', 'approve', 'ID', '--rule', '=DENY'], /expected TOOL=RULE/],
    [['servers', 'approve', 'ID', '--rule', 'ping=DENY', '--rule', 'ping=ALLOW'], /--rule: ping is named more than once/],
    [['servers', 'approve', 'ID', '--accept-all'], /accept-all/],
    [['servers', 'resume'], /ID/],
    [['servers', 'resume', 'ID', '--tool', 'x'], /tool/],
    [['servers', 'release', 'ID'], /nothing to release: give --tool NAME\[=RULE\] \(repeatable\) or --all-changed/],
    [['servers', 'release', 'ID', '--tool', 'get_weather=SOMETIMES'], /--tool get_weather=SOMETIMES: must be one of/],
    [['servers', 'release', 'ID', '--tool', 'a', '--tool', 'a=DENY'], /--tool: a is named more than once/],
    [['servers', 'verdict', 'ID', 'TOOL'], /action/],
    [['servers', 'verdict', 'ID', '--action', 'DENY'], /Missing 1 required arg: tool/],
    [['servers', 'verdict', 'ID', 'TOOL', '--action', 'NEVER'], /--action: must be one of ALLOW, LOG_ONLY, REQUIRE_APPROVAL, DENY/],
    [['servers', 'verdict', 'ID', 'TOOL', '--action', 'DENY', '--reason', 'x'.repeat(2001)], /--reason/],
    [['policies', 'mcp', 'add', '--action', 'DENY'], /give --tool, --agent or both/],
    [['policies', 'mcp', 'add', '--tool', 'T'], /action/],
    [['policies', 'mcp', 'add', '--tool', 'T', '--action', 'PERMIT'], /--action: must be one of ALLOW, LOG_ONLY, REQUIRE_APPROVAL, DENY/],
    [['policies', 'mcp', 'add', '--agent', 'a'.repeat(201), '--action', 'DENY'], /--agent/],
    [['policies', 'mcp', 'remove'], /ID/],
    [['policies', 'mcp', 'list', '--agent', 'x'], /agent/],
  ];
  for (const [args, message] of cases) {
    const run = await ctl(args, { url: dead });
    t.equal(run.code, 2, args.join(' ').slice(0, 80));
    t.match(run.stderr, message, args.join(' ').slice(0, 80));
  }
  const json = await ctl(['servers', 'approve', 'ID', '--rule', 'x=MAYBE', '--json'], { url: dead });
  t.equal(json.code, 2);
  t.match(json.json, { error: { code: 'usage_error', message: /must be one of/ } });
});

t.test('help names the new commands', async (t) => {
  const help = await ctl(['policies', 'mcp', '--help']);
  t.equal(help.code, 0, help.stderr);
  for (const verb of ['add', 'list', 'remove']) t.match(help.stdout, new RegExp(`policies mcp ${verb}`));
});

/** A URL on a port that was free a moment ago: connecting there is refused. */
const deadUrl = async (): Promise<string> => `http://127.0.0.1:${await freeLoopbackPort()}`;
