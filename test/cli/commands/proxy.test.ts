// gatewayctl proxy call, stop server|agent and approvals on MCP requests, end to end: the compiled
// CLI against a real gatewayd (loopback upstreams allowed) on a throwaway database and a real MCP
// server on port 0. Subtests run in order and share the daemon, the server and the agent.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, type CliRun } from '../../helpers/cli.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { activeAgent } from '../../helpers/mcp-proxy.js';
import { SAMPLE_TOOLS, startLegacyMcpServer } from '../../helpers/mcp-servers.js';
import { freeLoopbackPort } from '../../helpers/ports.js';

const gw = await startTestGateway(t, { env: { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '2' } });
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-proxy-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const up = await startLegacyMcpServer(t, { tools: SAMPLE_TOOLS });

function ctl(args: string[], url = gw.url): Promise<CliRun> {
  return runCli(args, home, { GATEWAYCTL_CONFIG: path.join(home, 'none.json'), GATEWAY_URL: url, GATEWAY_TOKEN: gw.adminToken });
}

/** tools/call requests the upstream received for `tool`. */
const upstreamCalls = (tool: string): unknown[] =>
  up.seen
    .filter((s) => s.rpcMethod === 'tools/call' && (s.body as { params?: { name?: string } }).params?.name === tool)
    .map((s) => (s.body as { params: { arguments?: unknown } }).params.arguments);
const approvalRows = async () => gw.db`select id, status, agent_id, tool_name from approvals order by created_at, id`;
const statusOf = async (id: string): Promise<string> => (await gw.api('GET', `/api/v1/mcp/servers/${id}`)).body.status;
const REFUSAL = (code: string): RegExp => new RegExp(`^Error: ${code}: .+ \\(request_id \\S+\\)$`, 'm');

/** Register, scan and activate through the API: get_weather ALLOW, delete_file DENY, ping REQUIRE_APPROVAL. */
async function activeServer(): Promise<string> {
  const reg = await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 'weather', server_url: up.url } });
  const id = reg.body.id as string;
  const scan = await gw.api('POST', `/api/v1/mcp/servers/${id}/scan`);
  if (scan.body?.scanned !== true) throw new Error(`scan failed: ${scan.text}`);
  const tools = (await gw.api('GET', `/api/v1/mcp/servers/${id}/tools`)).body.tools as {
    id: string;
    name: string;
    current_fingerprint: string;
  }[];
  const rules: Record<string, string> = { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'REQUIRE_APPROVAL' };
  const body = { tools: tools.map((x) => ({ tool_id: x.id, rule: rules[x.name]!, fingerprint: x.current_fingerprint })) };
  const act = await gw.api('POST', `/api/v1/mcp/servers/${id}/activate`, { body });
  if (act.status !== 200) throw new Error(`activate: ${act.status} ${act.text}`);
  return id;
}

const server = await activeServer();
const agent = await activeAgent(gw);
let held = '';

t.test('proxy call: an allowed tool answers with its result (exit 0) and the server saw the call', async (t) => {
  const json = await ctl(['proxy', 'call', server, 'get_weather', '--args', '{"city":"Oslo"}', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(json.json, {
    server_id: server,
    tool: 'get_weather',
    agent_id: null,
    approval_id: null,
    result: { content: [{ type: 'text', text: '{"city":"Oslo"}' }] },
  });
  t.same(upstreamCalls('get_weather'), [{ city: 'Oslo' }]);

  const human = await ctl(['proxy', 'call', server, 'get_weather', '--args', '{"city":"Bergen"}', '--agent-id', agent]);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, new RegExp(`^Result of get_weather on MCP server ${server}:$`, 'm'));
  t.match(human.stdout, /"text": "\{\\"city\\":\\"Bergen\\"\}"/);
  t.equal(human.stderr, '');
  t.same(upstreamCalls('get_weather'), [{ city: 'Oslo' }, { city: 'Bergen' }]);
});

t.test('proxy call: a DENY rule answers -32003 TOOL_DENIED (exit 1); the server never sees it, no approval', async (t) => {
  const approvals = await approvalRows();
  const json = await ctl(['proxy', 'call', server, 'delete_file', '--args', '{"path":"/etc/passwd"}', '--json']);
  t.equal(json.code, 1);
  t.match(json.json, {
    server_id: server,
    tool: 'delete_file',
    error: { code: -32003, message: String, data: { reason: 'TOOL_DENIED', trace_id: String } },
  });
  t.notOk('result' in json.json);
  const human = await ctl(['proxy', 'call', server, 'delete_file', '--args', '{"path":"/etc/passwd"}']);
  t.equal(human.code, 1);
  t.equal(human.stdout, '');
  t.match(human.stderr, /^Error: JSON-RPC -32003 TOOL_DENIED: .+ \(trace [0-9a-f-]{36}\)$/m);
  t.notMatch(human.stderr, /approvals decide/);
  t.same(upstreamCalls('delete_file'), []);
  t.same(await approvalRows(), approvals, 'nothing held');
});

t.test('proxy call: a REQUIRE_APPROVAL tool is held, -32004 with the approval id and how to approve (exit 1)', async (t) => {
  const json = await ctl(['proxy', 'call', server, 'ping', '--args', '{"n":1}', '--agent-id', agent, '--json']);
  t.equal(json.code, 1, json.stderr);
  t.match(json.json, {
    agent_id: agent,
    error: { code: -32004, data: { reason: 'TOOL_REQUIRES_APPROVAL', approval_id: String, trace_id: String } },
  });
  held = json.json.error.data.approval_id;

  const human = await ctl(['proxy', 'call', server, 'ping', '--args', '{"n":2}', '--agent-id', agent]);
  t.equal(human.code, 1);
  t.match(human.stderr, /^Error: JSON-RPC -32004 TOOL_REQUIRES_APPROVAL: .+$/m);
  const hint =
    /^Held for approval: (\S+)\. An Admin approves it with `gatewayctl approvals decide (\S+) --approve`, then repeat this call with the same arguments and --approval-id (\S+)\.$/m.exec(
      human.stderr,
    );
  t.ok(hint, human.stderr);
  t.equal(hint?.[1], hint?.[2]);
  t.not(hint?.[1], held, 'other arguments, another request');
  t.same(upstreamCalls('ping'), []);
  t.same(
    (await approvalRows()).map((a) => [a.status, a.agent_id, a.tool_name]),
    [
      ['PENDING', agent, 'ping'],
      ['PENDING', agent, 'ping'],
    ],
  );
});

t.test('approvals list shows the held MCP calls; approvals decide approves one', async (t) => {
  const list = await ctl(['approvals', 'list', '--json']);
  t.equal(list.code, 0, list.stderr);
  t.equal(list.json.approvals.length, 2);
  t.match(list.json.approvals[0], {
    id: held,
    kind: 'mcp',
    server_id: server,
    tool_name: 'ping',
    agent_id: agent,
    status: 'PENDING',
    trace_id: String,
  });
  t.match(list.json.approvals[0], { server_name: 'weather', agent_name: String, arguments: { n: 1 }, findings: [] });
  const human = await ctl(['approvals', 'list']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^ID\s+HELD\s+AGENT\s+KEY\s+ARGUMENTS\s+FINDINGS\s+TIME LEFT$/m);
  const key = list.json.approvals[0].credential_id;
  t.match(key, /\S/, 'the id of the key that made the call');
  t.match(
    human.stdout,
    new RegExp(`^${held}\\s+ping on weather\\s+\\S.* \\(${agent}\\)\\s+${key}\\s+\\{"n":1\\}\\s+-\\s+\\d+m \\d+s$`, 'm'),
    'tool and server by name, the agent, the key id, the arguments on one line, the time left',
  );
  const one = await ctl(['approvals', 'get', held]);
  t.equal(one.code, 0, one.stderr);
  t.match(one.stdout, /^\s*held:\s+ping on weather$/m);
  t.match(one.stdout, /^\s*status:\s+PENDING$/m);
  t.match(one.stdout, /^\s*expires:\s+\S+ \(\d+m \d+s left\)$/m);
  t.match(one.stdout, /^\s*findings:\s+none$/m);
  t.match(one.stdout, /arguments \(masked\):\n\{\n {2}"n": 1\n\}/);
  t.match(one.stdout, new RegExp(`decide: gatewayctl approvals decide ${held} --approve`));
  t.match((await ctl(['approvals', 'get', 'nope', '--json'])).json, { error: { code: 'not_found', status: 404 } });

  const decided = await ctl(['approvals', 'decide', held, '--approve', '--comment', 'operator test']);
  t.equal(decided.code, 0, decided.stderr);
  t.match(decided.stdout, new RegExp(`^APPROVED approval request ${held} .*by .+ at \\S+\\.$`, 'm'));
  t.equal((await gw.db`select status from approvals where id = ${held}`)[0]!.status, 'APPROVED');
});

t.test('proxy call --approval-id: the approved call is forwarded once; a second repeat is held anew', async (t) => {
  const first = await ctl(['proxy', 'call', server, 'ping', '--args', '{"n":1}', '--agent-id', agent, '--approval-id', held, '--json']);
  t.equal(first.code, 0, first.stderr);
  t.match(first.json, { approval_id: held, result: { content: [{ type: 'text', text: '{"n":1}' }] } });
  t.same(upstreamCalls('ping'), [{ n: 1 }], 'forwarded without the approval id');
  t.equal((await gw.db`select status from approvals where id = ${held}`)[0]!.status, 'USED');

  const again = await ctl(['proxy', 'call', server, 'ping', '--args', '{"n":1}', '--agent-id', agent, '--approval-id', held]);
  t.equal(again.code, 1);
  t.match(again.stderr, /^Error: JSON-RPC -32004 TOOL_REQUIRES_APPROVAL: /m);
  t.match(again.stderr, /^The approval id presented was not usable \(used\); a new request was made\.$/m);
  t.same(upstreamCalls('ping'), [{ n: 1 }], 'forwarded exactly once');
});

t.test("stop agent: the agent's open approvals are cancelled; an unknown agent is not_found (exit 1)", async (t) => {
  const open = (await approvalRows()).filter((a) => a.status === 'PENDING' && a.agent_id === agent).length;
  t.equal(open, 2);
  const run = await ctl(['stop', 'agent', agent, '--reason', 'incident 42', '--json']);
  t.equal(run.code, 0, run.stderr);
  t.same(run.json, { scope: 'agent', target_id: agent, reason: 'incident 42', approvals_ended: 2 });
  t.same(
    (await approvalRows())
      .filter((a) => a.agent_id === agent)
      .map((a) => a.status)
      .sort(),
    ['CANCELLED', 'CANCELLED', 'USED'],
  );

  const human = await ctl(['stop', 'agent', agent]);
  t.equal(human.code, 0, human.stderr);
  t.equal(
    human.stdout.trim(),
    `MCP emergency stop of agent ${agent}: 0 approval requests ended (open or approved but unused, now CANCELLED).`,
  );

  const unknown = await ctl(['stop', 'agent', 'no-such-agent']);
  t.equal(unknown.code, 1);
  t.match(unknown.stderr, REFUSAL('not_found'));
});

t.test('stop server: ACTIVE -> BLOCKED, its approvals ended, the next call -32001 SERVER_BLOCKED', async (t) => {
  const anonymous = await ctl(['proxy', 'call', server, 'ping', '--json']);
  t.equal(anonymous.code, 1);
  t.match(anonymous.json, { agent_id: null, error: { code: -32004, data: { approval_id: String } } });
  const run = await ctl(['stop', 'server', server, '--reason', 'incident 43']);
  t.equal(run.code, 0, run.stderr);
  t.equal(
    run.stdout.trim(),
    `MCP emergency stop of server ${server}: server ACTIVE -> BLOCKED; 1 approval request ended (open or approved but unused, now CANCELLED).`,
  );
  t.equal(await statusOf(server), 'BLOCKED');
  t.equal((await gw.db`select status from approvals where id = ${anonymous.json.error.data.approval_id}`)[0]!.status, 'CANCELLED');

  const calls = upstreamCalls('get_weather').length;
  const blocked = await ctl(['proxy', 'call', server, 'get_weather', '--args', '{"city":"Oslo"}', '--json']);
  t.equal(blocked.code, 1);
  t.match(blocked.json, { error: { code: -32001, data: { reason: 'SERVER_BLOCKED' } } });
  t.equal(upstreamCalls('get_weather').length, calls, 'the server never saw it');

  const again = await ctl(['stop', 'server', server, '--json']);
  t.equal(again.code, 0, again.stderr);
  t.same(again.json, {
    scope: 'server',
    target_id: server,
    reason: null,
    approvals_ended: 0,
    previous_status: 'BLOCKED',
    server_status: 'BLOCKED',
  });
  const human = await ctl(['stop', 'server', server]);
  t.match(human.stdout, /: server unchanged \(BLOCKED; only an ACTIVE server is blocked\); 0 approval requests ended/);

  const unknown = await ctl(['stop', 'server', 'no-such-server', '--json']);
  t.equal(unknown.code, 1);
  t.match(unknown.json, { error: { code: 'not_found', status: 404 } });
});

t.test("proxy call on an unknown server: the daemon's not_found (exit 1)", async (t) => {
  const run = await ctl(['proxy', 'call', 'no-such-server', 'ping']);
  t.equal(run.code, 1);
  t.match(run.stderr, REFUSAL('not_found'));
});

t.test('bad flags exit 2 before any request; a gateway that is not there exits 3', async (t) => {
  const port = await freeLoopbackPort();
  const nowhere = `http://127.0.0.1:${port}`;
  const bad: [string[], RegExp][] = [
    [['--args', '[1,2]'], /--args must be a JSON object/],
    [['--args', 'null'], /--args must be a JSON object/],
    [['--args', '"x"'], /--args must be a JSON object/],
    [['--args', '{"city":'], /--args must be a JSON object: /],
    [['--approval-id', 'a b'], /--approval-id: /],
    [['--agent-id', 'a\nb'], /--agent-id: /],
    [['--no-such-flag'], /Nonexistent flag/],
  ];
  for (const [flags, message] of bad) {
    const run = await ctl(['proxy', 'call', server, 'get_weather', ...flags], nowhere);
    t.equal(run.code, 2, flags.join(' '));
    t.match(run.stderr, message, flags.join(' '));
  }
  const json = await ctl(['proxy', 'call', server, 'get_weather', '--args', '[]', '--json'], nowhere);
  t.equal(json.code, 2);
  t.match(json.json, { error: { code: 'usage_error', message: /--args must be a JSON object/ } });
  const missing = await ctl(['proxy', 'call', server], nowhere);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /Missing 1 required arg/);
  t.equal((await ctl(['stop', 'server'], nowhere)).code, 2);

  for (const args of [
    ['proxy', 'call', server, 'get_weather'],
    ['stop', 'server', server],
    ['stop', 'agent', agent],
  ]) {
    const run = await ctl([...args, '--json'], nowhere);
    t.equal(run.code, 3, args.join(' '));
    t.match(run.json, { error: { code: 'gateway_unavailable', message: /cannot reach the gateway/ } });
  }
});
