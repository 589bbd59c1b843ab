import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { TestGateway } from '../../helpers/gateway.js';
import { startModernMcpServer, startScriptedServer } from '../../helpers/mcp-servers.js';
import { activeAgent, activeServer, callTraces, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';

const ALL_ALLOW = { get_weather: 'ALLOW', delete_file: 'ALLOW', ping: 'ALLOW', progress: 'ALLOW' };

/** Everything a refused call could have written besides its trace. */
const sideEffects = async (gw: TestGateway) => ({
  approvals: (await gw.db`select count(*)::int as n from approvals`)[0]!.n,
  servers: await gw.db`select id, status from mcp_servers order by id`,
  admin: (await gw.db`select count(*)::int as n from admin_log`)[0]!.n,
});

t.test("an allowed call is recorded, then forwarded with the server sign-in and never the caller's credential", async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t, { auth: { bearer: 'upstream-secret' } });
  const s = await activeServer(px, up.url, ALL_ALLOW, { auth: { auth_method: 'bearer', auth_config: { token: 'upstream-secret' } } });
  const agent = await activeAgent(px.gw);
  const res = await px.callTool(
    s.id,
    'get_weather',
    { city: 'Oslo' },
    { headers: { 'x-agent-id': agent, 'x-gateway-environment': 'staging' } },
  );
  t.equal(res.status, 200);
  t.same(res.body, { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: '{"city":"Oslo"}' }] } });
  t.equal(res.headers.get('x-gateway-trace-persisted'), 'db');
  t.equal(res.headers.get('x-gateway-status'), 'healthy');
  t.equal(up.calls(), 1);
  for (const seen of up.seen) {
    t.equal(
      seen.headers.authorization,
      'Bearer upstream-secret',
      `${seen.httpMethod} ${seen.rpcMethod ?? ''}: the server's sign-in, not the caller's token`,
    );
    t.notOk(JSON.stringify(seen.headers).includes(px.gw.adminToken), 'the gateway credential never goes upstream');
    t.equal(seen.headers['x-agent-id'], undefined);
  }
  const [trace] = await callTraces(px.gw);
  t.match(trace, { decision: 'PASSED', agent_id: agent, environment: 'staging' });
  t.match(trace!.body, {
    tool: 'get_weather',
    server_id: s.id,
    agent_id: agent,
    rule: 'ALLOW',
    rule_source: 'tool_rule',
    outcome: 'forwarded',
    upstream_latency_ms: null,
    display: '{"arguments":{"city":"Oslo"},"name":"get_weather"}',
  });
  t.match(trace!.body.arguments_hash, /^sha256:[0-9a-f]{64}$/);
  await px.proxy.outcomes.flush();
  const [outcome] = await px.gw.db`select * from mcp_call_outcomes`;
  t.match(outcome, { trace_id: trace!.id, server_id: s.id, tool_name: 'get_weather', upstream_status: 200, outcome: 'ok' });
  t.ok(Number(outcome!.latency_ms) > 0, 'upstream latency recorded after the answer');
});

t.test("refusals in the specification's order, each with its code and reason, none reaching the server", async (t) => {
  const px = await startProxyGateway(t);
  const { gw } = px;
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { ...ALL_ALLOW, delete_file: 'DENY' });
  const pending = (await gw.api('POST', '/api/v1/mcp/servers', { body: { name: 'pending', server_url: up.url } })).body;
  const blocked = await activeServer(px, up.url, ALL_ALLOW);
  await gw.api('POST', `/api/v1/mcp/servers/${blocked.id}/pause`);
  const suspended = await activeAgent(gw);
  await gw.api('POST', `/api/v1/agents/${suspended}/suspend`);
  const paused = await activeAgent(gw);
  await gw.api('POST', `/api/v1/agents/${paused}/pause`);
  const safe = await activeAgent(gw, 'safe');
  // get_weather changed since admission; ping never admitted, and one more never admitted with a changed description
  await gw.db`update mcp_tools set current_fingerprint = 'sha256:' || repeat('1', 64) where id = ${s.tools.get_weather!}`;
  await gw.db`update mcp_tools set approved_hash = null where id = ${s.tools.ping!}`;
  await gw.db`update mcp_tools set approved_hash = null, findings = '[{"code":"description_changed","detail":"x","where":"description"}]' where id = ${s.tools.progress!}`;
  await gw.settled();
  const before = await sideEffects(gw);
  const cases: [string, string, string, Record<string, string>, number, string][] = [
    // [server, tool, expected reason, headers, rpc code, note]
    [s.id, 'ping', 'AGENT_EMERGENCY_STOP', { 'x-agent-id': suspended }, -32003, 'suspended agent'],
    [s.id, 'ping', 'AGENT_PAUSED', { 'x-agent-id': paused }, -32003, 'paused agent'],
    [pending.id, 'ping', 'SERVER_PENDING_APPROVAL', {}, -32002, 'server awaiting approval'],
    [blocked.id, 'ping', 'SERVER_BLOCKED', {}, -32001, 'paused server'],
    [s.id, 'get_weather', 'APPROVED_FINGERPRINT_MISMATCH', {}, -32002, 'changed since admission'],
    [s.id, 'ping', 'TOOL_NOT_RELEASED', {}, -32002, 'never admitted'],
    [s.id, 'progress', 'TOOL_POISONING_SUSPECTED', {}, -32002, 'never admitted, description changed'],
    [s.id, 'no_such_tool', 'TOOL_NOT_RELEASED', {}, -32002, 'unknown tool'],
    [s.id, 'delete_file', 'TOOL_DENIED', {}, -32003, 'DENY rule'],
    // two checks failing at once: the earlier one answers
    [blocked.id, 'ping', 'AGENT_EMERGENCY_STOP', { 'x-agent-id': suspended }, -32003, 'suspended agent + blocked server'],
    [pending.id, 'delete_file', 'SERVER_PENDING_APPROVAL', {}, -32002, 'pending server + unknown tool'],
    [s.id, 'get_weather', 'APPROVED_FINGERPRINT_MISMATCH', { 'x-agent-id': safe }, -32002, 'changed tool + capability model'],
  ];
  for (const [server, tool, reason, headers, code, note] of cases) {
    const res = await px.callTool(server, tool, { x: 1 }, { headers });
    t.equal(res.status, 200, note);
    t.equal(res.body.error?.code, code, note);
    t.equal(res.body.error?.data?.reason, reason, note);
    t.equal(res.body.id, 1);
    t.type(res.body.error?.data?.trace_id, 'string', `${note}: the refusal is a trace`);
  }
  t.equal(up.calls(), 0, 'no refused call reached the server');
  t.same(await sideEffects(gw), before, 'a refusal writes nothing but its trace');
  const traces = await callTraces(gw);
  t.equal(traces.length, cases.length, 'one trace per decision');
  t.ok(traces.every((x) => x.decision === 'BLOCKED'));
  t.same(
    traces.map((x) => x.body.outcome),
    cases.map((c) => c[2]),
  );
  t.match(traces[0], { agent_id: suspended, body: { stage: 'agent', rpc_code: -32003 } });
  t.match(traces[8]!.body, { stage: 'rule', rule: 'DENY', rule_source: 'tool_rule' });

  // the capability model tightens: a `safe` agent may not call a delete tool even where the rule allows
  await gw.db`update mcp_policies set action = 'ALLOW' where mcp_tool_id = ${s.tools.delete_file!}`;
  await gw.settled();
  const tightened = await px.callTool(s.id, 'delete_file', { path: '/tmp/x' }, { headers: { 'x-agent-id': safe } });
  t.match(tightened.body.error, { code: -32003, data: { reason: 'TOOL_DENIED', rule_source: 'capability_model' } });
  const anonymous = await px.callTool(s.id, 'delete_file', { path: '/tmp/x' }, { headers: { 'x-agent-id': 'no-such-agent' } });
  t.ok(anonymous.body.result, 'an unknown agent id is anonymous: the server-wide ALLOW applies');
  t.equal(up.calls(), 1);
  t.match((await callTraces(gw)).at(-1), { agent_id: null, body: { metadata: { requested_agent_id: 'no-such-agent' } } });
});

t.test('LOG_ONLY forwards and records FLAGGED', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t, { response: 'json' });
  const s = await activeServer(px, up.url, { ...ALL_ALLOW, ping: 'LOG_ONLY' });
  const res = await px.callTool(s.id, 'ping', {});
  t.ok(res.body.result);
  t.equal(up.calls(), 1);
  const [trace] = await callTraces(px.gw);
  t.match(trace, { decision: 'FLAGGED', body: { rule: 'LOG_ONLY', outcome: 'forwarded' } });
  t.match(trace!.reason, /LOG_ONLY/);
  const nul = await px.callTool(s.id, 'ping', { s: 'a\u0000b' });
  t.ok(nul.body.result, 'an argument holding NUL is forwarded as sent');
  t.same(up.argumentsSeen.at(-1), { s: 'a\u0000b' });
  t.equal(
    (await callTraces(px.gw)).at(-1)!.body.display,
    '{"arguments":{"s":"a\\u0000b"},"name":"ping"}',
    'the display is JSON text, NUL escaped',
  );
  const traces = (await callTraces(px.gw)).length;
  const lone = await px.callTool(s.id, 'ping', { s: 'a\ud800b' });
  t.equal(lone.status, 400, 'a lone surrogate (not Unicode text) is refused before any decision');
  t.equal(lone.body.error.code, 'validation_error');
  t.equal(up.calls(), 2, 'and never forwarded');
  t.equal((await callTraces(px.gw)).length, traces, 'nor recorded');
});

t.test('held calls: approval bound to the exact arguments, used once, listed while open', async (t) => {
  const px = await startProxyGateway(t);
  const { gw } = px;
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { ...ALL_ALLOW, delete_file: 'REQUIRE_APPROVAL' }, { noRule: ['ping'] });
  const alice = await gw.key('admin', 'alice');

  const held = await px.callTool(s.id, 'delete_file', { path: '/srv/a', force: true });
  t.match(held.body.error, { code: -32004, data: { reason: 'TOOL_REQUIRES_APPROVAL' } });
  const approvalId = held.body.error.data.approval_id as string;
  t.type(approvalId, 'string');
  const expires = (await gw.db`select expires_at from approvals where id = ${approvalId}`)[0]!.expires_at as Date;
  t.equal(
    held.body.error.message,
    `The call to tool "delete_file" on server "${s.name}" is held for approval: request ${approvalId}, expires ${expires.toISOString()}. `
      + `An Admin decides with: gatewayctl approvals decide ${approvalId} --approve (or --deny). Once approved, repeat the same call `
      + 'with the same arguments and the approval id (header X-Gateway-Approval-Id, or argument _gateway_approval_id); it is forwarded once.',
    'the text a host shows names the request, tool, server, expiry and what happens next',
  );
  t.equal(held.headers.get('x-gateway-trace-persisted'), 'db');
  const noRule = await px.callTool(s.id, 'ping', {});
  t.match(noRule.body.error, { code: -32004, data: { reason: 'NO_TOOL_RULE_REQUIRE_APPROVAL' } });
  t.type(noRule.body.error.data.approval_id, 'string');

  const open = (await px.call('GET', '/api/v1/mcp/approvals')).body.approvals;
  t.same(open.map((a: { id: string }) => a.id).sort(), [approvalId, noRule.body.error.data.approval_id].sort());
  t.match(
    open.find((a: { id: string }) => a.id === approvalId),
    { server_id: s.id, tool_name: 'delete_file', agent_id: null, status: 'PENDING', kind: 'mcp' },
  );

  // while pending, repeating with the id holds it again under the same request
  const again = await px.callTool(
    s.id,
    'delete_file',
    { force: true, path: '/srv/a' },
    { headers: { 'x-gateway-approval-id': approvalId } },
  );
  t.match(again.body.error, { code: -32004, data: { approval_id: approvalId } });
  t.match(again.body.error.message, `is still waiting for approval ${approvalId} (expires ${expires.toISOString()})`);
  t.equal((await gw.db`select count(*)::int as n from approvals`)[0]!.n, 2, 'no new request for a pending one');

  const projectAdmin = (await gw.api('POST', '/api/v1/keys', { body: { name: 'automation', role: 'admin' } })).body.key;
  t.equal(
    (await px.call('POST', `/api/v1/mcp/approvals/${approvalId}/decide`, { token: projectAdmin, body: { approved: true } })).body.error
      .code,
    'mcp_release_author_unresolved',
    'a project key is no person',
  );
  const viewer = await gw.key('viewer', 'vic');
  t.equal((await px.call('POST', `/api/v1/mcp/approvals/${approvalId}/decide`, { token: viewer, body: { approved: true } })).status, 403);
  const decided = await px.call('POST', `/api/v1/mcp/approvals/${approvalId}/decide`, {
    token: alice,
    body: { approved: true, comment: 'ok once' },
  });
  t.equal(decided.status, 200);
  t.match(decided.body, { status: 'APPROVED', decided_by: 'alice', comment: 'ok once' });
  t.equal(
    (await px.call('POST', `/api/v1/mcp/approvals/${approvalId}/decide`, { token: alice, body: { approved: false } })).body.error.code,
    'approval_not_open',
  );
  t.notOk(
    (await px.call('GET', '/api/v1/mcp/approvals')).body.approvals.some((a: { id: string }) => a.id === approvalId),
    'a decided request is no longer open',
  );

  // different arguments: a new request, the approved one untouched
  const other = await px.callTool(
    s.id,
    'delete_file',
    { path: '/srv/b', force: true },
    { headers: { 'x-gateway-approval-id': approvalId } },
  );
  t.match(other.body.error, { code: -32004, data: { approval_rejected: 'arguments_mismatch' } });
  t.match(
    other.body.error.message,
    new RegExp(`^Approval ${approvalId} was given for other arguments; .* held for approval: request ${other.body.error.data.approval_id}`),
  );
  t.not(other.body.error.data.approval_id, approvalId);
  t.equal(up.calls(), 0);

  // the same arguments in another key order, with an escape, the id in the arguments: forwarded once, id removed
  const raw = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"delete_file","arguments":{"force":true,"_gateway_approval_id":"${approvalId}","path":"/srv/\\u0061"}}}`;
  const used = await px.rpc(s.id, raw);
  t.equal(used.body.id, 7);
  t.ok(used.body.result, 'forwarded under the approval');
  t.equal(up.calls(), 1);
  t.same(up.argumentsSeen.at(-1), { force: true, path: '/srv/a' }, '_gateway_approval_id is not forwarded');
  const twice = await px.callTool(
    s.id,
    'delete_file',
    { path: '/srv/a', force: true },
    { headers: { 'x-gateway-approval-id': approvalId } },
  );
  t.match(twice.body.error, { code: -32004, data: { approval_rejected: 'used' } });
  t.match(twice.body.error.message, `Approval ${approvalId} was already used: an approval allows one call.`);
  t.equal(up.calls(), 1, 'an approval is used once');
  t.equal((await gw.db`select status from approvals where id = ${approvalId}`)[0]!.status, 'USED');

  // a denied request refuses its call
  const denyMe = (await px.callTool(s.id, 'delete_file', { path: '/srv/c' })).body.error.data.approval_id;
  await px.call('POST', `/api/v1/mcp/approvals/${denyMe}/decide`, { token: alice, body: { approved: false, comment: 'not this folder' } });
  const denied = await px.callTool(s.id, 'delete_file', { path: '/srv/c' }, { headers: { 'x-gateway-approval-id': denyMe } });
  t.match(denied.body.error, { code: -32003, data: { reason: 'APPROVAL_DENIED', approval_id: denyMe } });
  t.equal(
    denied.body.error.message,
    `Approval ${denyMe} for this call to tool "delete_file" was denied by alice ("not this folder"). The call was not forwarded and this approval stays denied; to ask again, make the call without an approval id (a new request is opened).`,
  );

  // conflicting ids in header and arguments: a malformed request, not a decision
  const conflict = await px.callTool(
    s.id,
    'delete_file',
    { path: '/srv/a', _gateway_approval_id: 'x' },
    { headers: { 'x-gateway-approval-id': approvalId } },
  );
  t.equal(conflict.status, 400);
  t.equal(conflict.body.error.code, -32602);

  const decisions = (await callTraces(gw)).map((x) => [x.decision, x.body.outcome]);
  t.same(decisions, [
    ['PENDING_APPROVAL', 'TOOL_REQUIRES_APPROVAL'],
    ['PENDING_APPROVAL', 'NO_TOOL_RULE_REQUIRE_APPROVAL'],
    ['PENDING_APPROVAL', 'TOOL_REQUIRES_APPROVAL'],
    ['PENDING_APPROVAL', 'TOOL_REQUIRES_APPROVAL'],
    ['PASSED', 'forwarded'],
    ['PENDING_APPROVAL', 'TOOL_REQUIRES_APPROVAL'],
    ['PENDING_APPROVAL', 'TOOL_REQUIRES_APPROVAL'],
    ['BLOCKED', 'APPROVAL_DENIED'],
  ]);
  const heldTrace = (await callTraces(gw))[0]!;
  t.same(heldTrace.body.arguments, { path: '/srv/a', force: true }, 'a held call keeps its arguments for the person deciding');
  t.equal(heldTrace.body.approval_id, approvalId);
});

t.test('50 concurrent repeats of one approved call forward exactly one', async (t) => {
  // the 49 held anew each open a request: above the default per-minute limit of one key (30)
  const px = await startProxyGateway(t, { GATEWAY_APPROVAL_REQUESTS_PER_MINUTE: '100' });
  const up = await startCountingServer(t, { response: 'json' });
  const s = await activeServer(px, up.url, { ...ALL_ALLOW, delete_file: 'REQUIRE_APPROVAL' });
  const alice = await px.gw.key('admin', 'alice');
  const args = { path: '/srv/x' };
  const id = (await px.callTool(s.id, 'delete_file', args)).body.error.data.approval_id;
  await px.call('POST', `/api/v1/mcp/approvals/${id}/decide`, { token: alice, body: { approved: true } });
  const results = await Promise.all(
    Array.from({ length: 50 }, () => px.callTool(s.id, 'delete_file', args, { headers: { 'x-gateway-approval-id': id } })),
  );
  const forwarded = results.filter((r) => r.body.result);
  t.equal(forwarded.length, 1, 'one answer with a result');
  t.equal(up.calls(), 1, 'the server saw one call');
  t.ok(
    results.filter((r) => !r.body.result).every((r) => r.body.error.code === -32004 && r.body.error.data.approval_rejected === 'used'),
    'the others are held anew',
  );
  t.equal((await px.gw.db`select count(*)::int as n from traces where trace_type = 'MCP_TOOL_CALL' and decision = 'PASSED'`)[0]!.n, 1);
});

t.test('too many pending approvals for one agent: -32005', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_MAX_PENDING_APPROVALS_PER_AGENT: '2' });
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { ...ALL_ALLOW, ping: 'REQUIRE_APPROVAL' });
  const agent = await activeAgent(px.gw);
  const headers = { 'x-agent-id': agent };
  for (const n of [1, 2]) t.equal((await px.callTool(s.id, 'ping', { n }, { headers })).body.error.code, -32004);
  const over = await px.callTool(s.id, 'ping', { n: 3 }, { headers });
  t.match(over.body.error, { code: -32005, data: { reason: 'PENDING_APPROVALS_LIMIT', agent_id: agent } });
  t.equal((await px.gw.db`select count(*)::int as n from approvals where agent_id = ${agent}`)[0]!.n, 2);
  t.equal((await px.callTool(s.id, 'ping', { n: 4 })).body.error.code, -32004, 'anonymous calls are not counted against the agent');
  t.match((await callTraces(px.gw)).at(-2), { decision: 'BLOCKED', body: { outcome: 'PENDING_APPROVALS_LIMIT' } });
  const nul = await px.callTool(s.id, 'ping', { s: 'a\u0000b' });
  t.equal(nul.body.error.code, -32004, 'held arguments holding NUL are recorded too');
  t.same(
    (await callTraces(px.gw)).at(-1)!.body.arguments,
    { s: 'a\ufffdb' },
    'shown with U+FFFD: PostgreSQL cannot store NUL; the hash covers the original',
  );
  t.equal(up.calls(), 0);
});

t.test('upstream faults: sign-in not attachable -32008 (403), unreachable -32007, invalid answer -32006', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, ALL_ALLOW);
  await px.gw.api('PATCH', `/api/v1/mcp/servers/${s.id}`, { body: { auth_method: 'oauth2' } });
  const noAuth = await px.callTool(s.id, 'ping', {});
  t.equal(noAuth.status, 403);
  t.match(noAuth.body.error, { code: -32008, data: { reason: 'UPSTREAM_AUTH_UNAVAILABLE' } });
  await px.gw.api('PATCH', `/api/v1/mcp/servers/${s.id}`, { body: { auth_method: 'bearer', auth_config: null } });
  t.equal((await px.callTool(s.id, 'ping', {})).body.error.code, -32008, 'bearer without a token');
  t.equal(up.calls(), 0);

  const gone = await activeServer(px, up.url, ALL_ALLOW);
  await px.gw.db`update mcp_servers set server_url = 'http://127.0.0.1:1/mcp' where id = ${gone.id}`;
  await px.gw.settled();
  const unreachable = await px.callTool(gone.id, 'ping', {});
  t.equal(unreachable.status, 200);
  t.match(unreachable.body.error, { code: -32007, data: { reason: 'UPSTREAM_UNREACHABLE' } });

  const bad = await startScriptedServer(t, { misbehave: 'garbage', on: 'tools/call' });
  const b = await activeServer(px, bad.url, ALL_ALLOW);
  const invalid = await px.callTool(b.id, 'ping', {});
  t.match(invalid.body.error, { code: -32006, data: { reason: 'UPSTREAM_INVALID_RESPONSE' } });

  const traces = await callTraces(px.gw);
  t.same(
    traces.map((x) => x.decision),
    ['BLOCKED', 'BLOCKED', 'PASSED', 'PASSED'],
    'the forwarded ones were recorded before they failed upstream',
  );
  await px.proxy.outcomes.flush();
  const outcomes = await px.gw.db`select outcome, rpc_code from mcp_call_outcomes order by recorded_at`;
  t.same(outcomes.map((o) => [o.outcome, o.rpc_code]).sort(), [
    ['invalid_response', -32006],
    ['unreachable', -32007],
  ]);
});

t.test('tools/list under mcp_tools_list callable shows only tools the caller could call; other methods pass through', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'REQUIRE_APPROVAL', progress: 'LOG_ONLY' });
  // The default (admitted) lists DENY tools too: mcp-proxy.tools-list.test.ts covers every mode.
  t.equal((await px.gw.api('PATCH', '/api/v1/project', { body: { mcp_tools_list: 'callable' } })).status, 200);
  const agent = await activeAgent(px.gw);
  await px.gw.api('POST', '/api/v1/mcp/policies', { body: { action: 'DENY', agent_id: agent, mcp_tool_id: s.tools.progress } });
  const names = async (headers: Record<string, string> = {}) => {
    const res = await px.rpc(s.id, { jsonrpc: '2.0', id: 'l', method: 'tools/list' }, { headers });
    return (res.body.result.tools as { name: string }[]).map((x) => x.name).sort();
  };
  t.same(await names(), ['get_weather', 'ping', 'progress'], 'denied tools are hidden; held ones listed');
  t.same(await names({ 'x-agent-id': agent }), ['get_weather', 'ping'], 'an agent rule hides a tool for that agent');
  await px.gw.db`update mcp_tools set approved_hash = 'sha256:' || repeat('2', 64) where id = ${s.tools.ping!}`;
  await px.gw.settled();
  t.same(await names(), ['get_weather', 'progress'], 'a tool changed since admission is hidden');
  t.equal((await callTraces(px.gw)).length, 0, 'tools/list is not a decision');
  const ping = await px.rpc(s.id, { jsonrpc: '2.0', id: 2, method: 'ping' });
  t.same(ping.body, { jsonrpc: '2.0', id: 2, result: {} });
  await px.gw.api('POST', `/api/v1/mcp/servers/${s.id}/pause`);
  t.match(
    (await px.rpc(s.id, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).body.error,
    { code: -32001, data: { reason: 'SERVER_BLOCKED' } },
    'a blocked server gets no traffic at all',
  );
});

t.test('protocol checks before any decision: unknown server, malformed body, header mismatch, foreign session', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t, { response: 'json' });
  const s = await activeServer(px, up.url, ALL_ALLOW);
  const missing = await px.callTool('nope', 'ping', {});
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'not_found');
  const batch = await px.rpc(s.id, [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
  t.equal(batch.status, 400);
  t.equal(batch.body.error.code, -32600);
  const note = await px.rpc(s.id, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'ping' } });
  t.equal(note.status, 400, 'a tools/call without an id cannot slip past the rules as a notification');
  t.equal(note.body.error.code, -32600);
  const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' };
  const mismatch = await px.callTool(s.id, 'delete_file', {}, { headers: modern });
  t.equal(mismatch.status, 400);
  t.match(mismatch.body.error, { code: -32020, data: { reason: 'HEADER_MISMATCH' } });
  const b64 = await px.callTool(
    s.id,
    'delete_file',
    {},
    { headers: { ...modern, 'mcp-name': `=?base64?${Buffer.from('get_weather').toString('base64')}?=` } },
  );
  t.equal(b64.body.error.code, -32020, 'a base64-encoded Mcp-Name is compared decoded');
  const method = await px.callTool(s.id, 'get_weather', {}, { headers: { ...modern, 'mcp-method': 'tools/list' } });
  t.equal(method.body.error.code, -32020);
  t.equal((await callTraces(px.gw)).length, 0, 'no decision was taken');
  t.equal(up.calls(), 0);

  // a session opened by one credential cannot be ridden by another
  const init = await px.rpc(s.id, {
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const sid = init.headers.get('mcp-session-id');
  t.ok(sid, 'the upstream session id comes back');
  const sessionHeaders = { 'mcp-session-id': sid!, 'mcp-protocol-version': '2025-11-25' };
  t.equal((await px.rpc(s.id, { jsonrpc: '2.0', method: 'notifications/initialized' }, { headers: sessionHeaders })).status, 202);
  const mine = await px.callTool(s.id, 'ping', {}, { headers: sessionHeaders });
  t.ok(mine.body.result, 'the opener uses its session');
  const other = await px.gw.key('viewer', 'mallory');
  const theirs = await px.callTool(s.id, 'ping', {}, { headers: sessionHeaders, token: other });
  t.equal(theirs.status, 404);
  t.match(theirs.body.error, { code: -32600, data: { reason: 'SESSION_NOT_BOUND' } });
  t.equal(up.calls(), 1);
  t.equal((await px.gw.db`select count(*)::int as n from mcp_proxy_sessions`)[0]!.n, 1, 'the binding is in the database');
  const del = await px.call('DELETE', `/api/v1/mcp/proxy/${s.id}`, { headers: sessionHeaders });
  t.equal(del.status, 200);
  t.equal((await px.gw.db`select count(*)::int as n from mcp_proxy_sessions`)[0]!.n, 0, 'DELETE ends the binding');
});

t.test('targeted emergency stop: server and agent scopes, scope all removed, refusals write nothing', async (t) => {
  const px = await startProxyGateway(t);
  const { gw } = px;
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { ...ALL_ALLOW, ping: 'REQUIRE_APPROVAL' });
  const other = await activeServer(px, up.url, { ...ALL_ALLOW, ping: 'REQUIRE_APPROVAL' });
  const agent = await activeAgent(gw);
  const held = (await px.callTool(s.id, 'ping', { a: 1 })).body.error.data.approval_id;
  const heldOther = (await px.callTool(other.id, 'ping', { a: 1 })).body.error.data.approval_id;
  const heldAgent = (await px.callTool(other.id, 'ping', { a: 2 }, { headers: { 'x-agent-id': agent } })).body.error.data.approval_id;
  const editor = await gw.key('editor', 'ed');

  const admin = async () => (await gw.db`select count(*)::int as n from admin_log`)[0]!.n;
  const before = {
    admin: await admin(),
    servers: await gw.db`select id, status from mcp_servers order by id`,
    approvals: await gw.db`select id, status from approvals order by id`,
  };
  const refusals: [unknown, number, string, string?][] = [
    [{ scope: 'all', reason: 'x' }, 400, 'mcp_scope_all_removed'],
    [{ scope: 'all', target_id: s.id }, 400, 'mcp_scope_all_removed'],
    [{ scope: 'server' }, 400, 'validation_error'],
    [{ scope: 'planet', target_id: s.id }, 400, 'validation_error'],
    [{ scope: 'server', target_id: 'nope' }, 404, 'not_found'],
    [{ scope: 'agent', target_id: 'nope' }, 404, 'not_found'],
    [{ scope: 'server', target_id: s.id }, 403, 'forbidden', editor],
  ];
  for (const [body, status, code, token] of refusals) {
    const res = await px.call('POST', '/api/v1/mcp/emergency-stop', { body, ...(token ? { token } : {}) });
    t.equal(res.status, status, JSON.stringify(body));
    t.equal(res.body.error.code, code);
  }
  t.same(
    {
      admin: await admin(),
      servers: await gw.db`select id, status from mcp_servers order by id`,
      approvals: await gw.db`select id, status from approvals order by id`,
    },
    before,
    'no refusal wrote anything',
  );

  const stopped = await px.call('POST', '/api/v1/mcp/emergency-stop', {
    body: { scope: 'server', target_id: s.id, reason: 'exfiltration suspected' },
  });
  t.equal(stopped.status, 200);
  t.match(stopped.body, { scope: 'server', target_id: s.id, previous_status: 'ACTIVE', server_status: 'BLOCKED', approvals_ended: 1 });
  t.equal((await gw.db`select status from approvals where id = ${held}`)[0]!.status, 'CANCELLED');
  t.equal((await gw.db`select status from approvals where id = ${heldOther}`)[0]!.status, 'PENDING', "only the target's approvals end");
  t.equal((await px.callTool(s.id, 'get_weather', { city: 'x' })).body.error.data.reason, 'SERVER_BLOCKED');
  const again = await px.call('POST', '/api/v1/mcp/emergency-stop', { body: { scope: 'server', target_id: s.id } });
  t.match(again.body, { previous_status: 'BLOCKED', server_status: 'BLOCKED', approvals_ended: 0 }, 'a server not ACTIVE stays as it is');

  const byAgent = await px.call('POST', '/api/v1/mcp/emergency-stop', { body: { scope: 'agent', target_id: agent, reason: 'runaway' } });
  t.match(byAgent.body, { scope: 'agent', target_id: agent, approvals_ended: 1 });
  t.equal((await gw.db`select status from approvals where id = ${heldAgent}`)[0]!.status, 'CANCELLED');
  t.equal((await gw.db`select status from approvals where id = ${heldOther}`)[0]!.status, 'PENDING');
  const entries =
    await gw.db`select action, target_id, details from admin_log where action like 'mcp.emergency_stop.%' order by sequence_num`;
  t.same(
    entries.map((e) => [e.action, e.target_id]),
    [
      ['mcp.emergency_stop.server', s.id],
      ['mcp.emergency_stop.server', s.id],
      ['mcp.emergency_stop.agent', agent],
    ],
  );
  t.equal((await gw.db`select count(*)::int as n from traces where trace_type = 'MCP_EMERGENCY_STOP'`)[0]!.n, 3);
});

t.test(
  'a real SDK client through the proxy: connect, list (admitted tools, the DENY one too), call, progress streamed, refusal as McpError',
  async (t) => {
    const px = await startProxyGateway(t);
    const up = await startCountingServer(t, { ask: true });
    const s = await activeServer(px, up.url, { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'ALLOW', progress: 'ALLOW', ask: 'ALLOW' });
    const client = new Client({ name: 'proxy-test', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { ok: true } }));
    const transport = new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${s.id}`), {
      requestInit: { headers: { authorization: `Bearer ${px.gw.adminToken}` } },
    });
    await client.connect(transport);
    t.teardown(() => client.close());
    const listed = await client.listTools();
    t.same(
      listed.tools.map((x) => x.name).sort(),
      ['ask', 'delete_file', 'get_weather', 'ping', 'progress'],
      'tools/list is not a rule decision',
    );
    const res = await client.callTool({ name: 'ping', arguments: { n: 1 } });
    t.same(res.content, [{ type: 'text', text: '{"n":1}' }]);
    const progress: number[] = [];
    await client.callTool({ name: 'progress', arguments: {} }, undefined, {
      onprogress: (p) => {
        progress.push(p.progress);
      },
    });
    t.same(progress, [1, 2, 3], 'progress notifications streamed through');
    const denied = await client.callTool({ name: 'delete_file', arguments: { path: '/x' } }).then(
      () => null,
      (err: { code?: number; data?: { reason?: string } }) => err,
    );
    t.equal(denied?.code, -32003);
    t.equal(denied?.data?.reason, 'TOOL_DENIED');
    const asked = await client.callTool({ name: 'ask', arguments: {} });
    t.same(
      asked.content,
      [{ type: 'text', text: '{"action":"accept","content":{"ok":true}}' }],
      'a server-to-client request and its answer went through',
    );
    t.equal(up.calls(), 3);
    const traces = await callTraces(px.gw);
    t.same(
      traces.map((x) => [x.decision, x.body.tool, x.body.mode]),
      [
        ['PASSED', 'ping', 'session'],
        ['PASSED', 'progress', 'session'],
        ['BLOCKED', 'delete_file', 'session'],
        ['PASSED', 'ask', 'session'],
      ],
    );
    t.ok(
      up.seen.filter((x) => x.rpcMethod === 'tools/call').every((x) => x.headers['mcp-session-id']),
      "calls went through the client's own session",
    );
  },
);

t.test('a 2026-07-28 server through a gateway session', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startModernMcpServer(t, { legacy: 'reject' });
  const s = await activeServer(px, up.url, { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'ALLOW' });
  t.equal((await px.gw.db`select scan_result->>'era' as era from mcp_servers where id = ${s.id}`)[0]!.era, '2026-07-28');
  const list = await px.rpc(s.id, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
  t.same(list.body.result.tools.map((x: { name: string }) => x.name).sort(), ['delete_file', 'get_weather', 'ping']);
  const called = await px.callTool(s.id, 'ping', { a: 'b' });
  t.same(called.body.result.content, [{ type: 'text', text: '{"a":"b"}' }]);
  const calls = up.seen.filter((x) => x.rpcMethod === 'tools/call');
  t.equal(calls.length, 1);
  t.equal(calls[0]!.headers['mcp-method'], 'tools/call');
  t.equal(calls[0]!.headers['mcp-name'], 'ping');

  // a 2026-07-28 client of its own: its headers and _meta envelope are relayed, checked against the body first
  const meta = {
    'io.modelcontextprotocol/protocolVersion': '2026-07-28',
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
  };
  const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'ping' };
  const relayed = await px.rpc(
    s.id,
    { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'ping', arguments: { z: 1 }, _meta: meta } },
    { headers },
  );
  t.same(relayed.body.result?.content, [{ type: 'text', text: '{"z":1}' }]);
  t.equal((await callTraces(px.gw)).at(-1)!.body.mode, 'session');
  const denied = await px.rpc(
    s.id,
    { jsonrpc: '2.0', id: 10, method: 'tools/call', params: { name: 'delete_file', arguments: {}, _meta: meta } },
    { headers: { ...headers, 'mcp-name': 'delete_file' } },
  );
  t.equal(denied.body.error.code, -32003);
  t.equal(up.seen.filter((x) => x.rpcMethod === 'tools/call').length, 2);
});
