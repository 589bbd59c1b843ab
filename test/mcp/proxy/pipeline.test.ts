import t from 'tap';
import { MCP_RPC_ERRORS } from '../../../shared/errors.js';
import { PROFILE_MODELS } from '../../../daemon/agents/capability.js';
import type { Approval } from '../../../daemon/approvals/store.js';
import { APPROVAL_ARGUMENT, argumentsHash, splitArguments } from '../../../daemon/mcp/proxy/canonical.js';
import { routingMismatch, upstreamHeaders } from '../../../daemon/mcp/proxy/headers.js';
import { filterToolsResult } from '../../../daemon/mcp/proxy/list-filter.js';
import { PASSTHROUGH_STAGES, runStages, TOOL_CALL_STAGES, TOOL_CALL_STEPS, type Decision } from '../../../daemon/mcp/proxy/pipeline.js';
import { callTrace, decisionOf } from '../../../daemon/mcp/proxy/record.js';
import { parseMessage, rpcError, type RpcMessage } from '../../../daemon/mcp/proxy/rpc.js';
import type { CallContext } from '../../../daemon/mcp/proxy/stages/types.js';
import { callContext } from '../../helpers/call-context.js';
import { toolFingerprint } from '../../../daemon/mcp/client/tool-surface.js';

const NOW = new Date('2026-11-21T10:00:00Z');
const LATER = new Date(NOW.getTime() + 3_600_000).toISOString();
const HASH = argumentsHash({ path: '/a' });

const ctx = (over: Partial<CallContext> = {}): CallContext =>
  callContext({ now: NOW, argumentsHash: HASH, arguments: { path: '/a' }, ...over });

const approval = (over: Partial<Approval> = {}): Approval => ({
  id: 'ap1',
  kind: 'mcp',
  trace_id: null,
  server_id: 'srv',
  tool_name: 'delete_file',
  agent_id: null,
  credential_id: 'cred1',
  arguments_hash: HASH,
  status: 'APPROVED',
  created_at: NOW.toISOString(),
  expires_at: LATER,
  decided_at: NOW.toISOString(),
  decided_by: 'alice',
  comment: null,
  findings: [],
  ...over,
});

const refusalOf = (d: Decision) =>
  d.kind === 'refuse' ? { stage: d.stage, reason: d.refusal.code, hold: d.refusal.detail.hold } : { stage: null, reason: null };

t.test("the stage order is the specification's", async (t) => {
  t.same(
    TOOL_CALL_STAGES.map((s) => s.name),
    ['agent', 'server', 'admission', 'rule', 'content', 'approval', 'sign-in'],
  );
  t.same(
    PASSTHROUGH_STAGES.map((s) => s.name),
    ['agent', 'server', 'content', 'sign-in'],
    'other methods: the gates and the content of their params, no rule',
  );
  t.ok(Object.isFrozen(TOOL_CALL_STAGES));
});

t.test('a tools/call is one journey: loaded, decided once, recorded, then forwarded last', async (t) => {
  t.same(
    TOOL_CALL_STEPS.map((s) => s.name),
    ['read', 'load', 'decide', 'record', 'refuse', 'forward'],
  );
  t.ok(Object.isFrozen(TOOL_CALL_STEPS));
});

t.test('every refusal with its code and reason', async (t) => {
  const active = { id: 'ag', status: 'ACTIVE' as const, capability: PROFILE_MODELS.full_access };
  const cases: [string, Partial<CallContext>, string, string, number][] = [
    ['suspended agent', { agent: { ...active, status: 'SUSPENDED' } }, 'agent', 'AGENT_EMERGENCY_STOP', -32003],
    ['revoked agent', { agent: { ...active, status: 'REVOKED' } }, 'agent', 'AGENT_REVOKED', -32003],
    ['pending agent', { agent: { ...active, status: 'PENDING_APPROVAL' } }, 'agent', 'AGENT_PENDING_APPROVAL', -32003],
    [
      'server awaiting approval',
      { server: { id: 'srv', name: 'f', status: 'PENDING_APPROVAL' } },
      'server',
      'SERVER_PENDING_APPROVAL',
      -32002,
    ],
    ['blocked server', { server: { id: 'srv', name: 'f', status: 'BLOCKED' } }, 'server', 'SERVER_BLOCKED', -32001],
    ['unknown tool', { tool: null }, 'admission', 'TOOL_NOT_RELEASED', -32002],
    ['vanished tool', { tool: { ...ctx().tool!, present: false } }, 'admission', 'TOOL_NOT_RELEASED', -32002],
    ['not admitted', { tool: { ...ctx().tool!, approvedHash: null } }, 'admission', 'TOOL_NOT_RELEASED', -32002],
    [
      'not admitted, description changed',
      { tool: { ...ctx().tool!, approvedHash: null, findings: ['description_changed'] } },
      'admission',
      'TOOL_POISONING_SUSPECTED',
      -32002,
    ],
    [
      'changed since admission',
      { tool: { ...ctx().tool!, currentFingerprint: 'sha256:b' } },
      'admission',
      'APPROVED_FINGERPRINT_MISMATCH',
      -32002,
    ],
    ['DENY rule', { serverWide: ['ALLOW', 'DENY'] }, 'rule', 'TOOL_DENIED', -32003],
    ['agent rule DENY', { agent: active, agentRules: ['DENY'] }, 'rule', 'TOOL_DENIED', -32003],
    ['capability model', { agent: { ...active, capability: PROFILE_MODELS.safe } }, 'rule', 'TOOL_DENIED', -32003],
    ['REQUIRE_APPROVAL', { serverWide: ['REQUIRE_APPROVAL'] }, 'approval', 'TOOL_REQUIRES_APPROVAL', -32004],
    ['no rule', { serverWide: [] }, 'approval', 'NO_TOOL_RULE_REQUIRE_APPROVAL', -32004],
    [
      'pending limit',
      {
        serverWide: ['REQUIRE_APPROVAL'],
        agent: active,
        openApprovals: { forCredential: 20, forAgent: 20, lastMinute: 20, windowFreesIn: 0 },
      },
      'approval',
      'PENDING_APPROVALS_LIMIT',
      -32005,
    ],
    [
      'pending limit of the credential (anonymous)',
      { serverWide: ['REQUIRE_APPROVAL'], openApprovals: { forCredential: 50, forAgent: 0, lastMinute: 0, windowFreesIn: 0 } },
      'approval',
      'PENDING_APPROVALS_LIMIT',
      -32005,
    ],
    [
      'new approval requests per minute of the credential',
      { serverWide: ['REQUIRE_APPROVAL'], openApprovals: { forCredential: 0, forAgent: 0, lastMinute: 30, windowFreesIn: 12 } },
      'approval',
      'APPROVAL_RATE_LIMITED',
      -32005,
    ],
    ['sign-in unsupported', { auth: { method: 'oauth2' } }, 'sign-in', 'UPSTREAM_AUTH_UNAVAILABLE', -32008],
    ['sign-in token missing', { auth: { method: 'bearer', config: {} } }, 'sign-in', 'UPSTREAM_AUTH_UNAVAILABLE', -32008],
    ['sign-in unreadable', { auth: null }, 'sign-in', 'UPSTREAM_AUTH_UNAVAILABLE', -32008],
  ];
  for (const [note, over, stage, reason, code] of cases) {
    const d = runStages(TOOL_CALL_STAGES, ctx(over));
    t.match(refusalOf(d), { stage, reason }, note);
    t.equal(MCP_RPC_ERRORS[reason as keyof typeof MCP_RPC_ERRORS].rpc, code, `${note}: ${code}`);
  }
  t.equal(MCP_RPC_ERRORS.UPSTREAM_AUTH_UNAVAILABLE.status, 403, '-32008 travels with HTTP 403');
  t.same(rpcError(5, 'TOOL_DENIED', { approval_id: 'x' }).body, {
    jsonrpc: '2.0',
    id: 5,
    error: { code: -32003, message: MCP_RPC_ERRORS.TOOL_DENIED.message, data: { reason: 'TOOL_DENIED', approval_id: 'x' } },
  });
});

t.test('two checks failing at once: the earlier stage answers', async (t) => {
  const suspended = { id: 'ag', status: 'SUSPENDED' as const, capability: null };
  const pairs: [Partial<CallContext>, string][] = [
    [{ agent: suspended, server: { id: 'srv', name: 'f', status: 'BLOCKED' } }, 'AGENT_EMERGENCY_STOP'],
    [{ server: { id: 'srv', name: 'f', status: 'BLOCKED' }, tool: null }, 'SERVER_BLOCKED'],
    [{ tool: { ...ctx().tool!, approvedHash: null }, serverWide: ['DENY'] }, 'TOOL_NOT_RELEASED'],
    [{ serverWide: ['DENY'], auth: { method: 'oauth2' } }, 'TOOL_DENIED'],
    [{ serverWide: ['REQUIRE_APPROVAL'], auth: { method: 'oauth2' } }, 'TOOL_REQUIRES_APPROVAL'],
  ];
  for (const [over, reason] of pairs) t.equal(refusalOf(runStages(TOOL_CALL_STAGES, ctx(over))).reason, reason);
});

t.test('passing every stage: forward, with the sign-in headers and the rule', async (t) => {
  const d = runStages(TOOL_CALL_STAGES, ctx({ auth: { method: 'bearer', config: { token: 'tok' } }, serverWide: ['LOG_ONLY'] }));
  t.equal(d.kind, 'forward');
  t.same(d.state.signIn, { authorization: 'Bearer tok' });
  t.equal(d.state.effective?.rule, 'LOG_ONLY');
  t.equal(decisionOf(d), 'FLAGGED', 'LOG_ONLY is forwarded and flagged');
  t.equal(decisionOf(runStages(TOOL_CALL_STAGES, ctx())), 'PASSED');
});

t.test(
  'token exchange: a caller without an access token is refused at sign-in; one with it passes, its token exchanged later',
  async (t) => {
    const exchange = { method: 'token_exchange', config: { client_id: 'gw', client_secret: 's', resource: 'https://up.example/mcp' } };
    const keyCaller = runStages(TOOL_CALL_STAGES, ctx({ auth: exchange, subject: null }));
    t.match(refusalOf(keyCaller), { stage: 'sign-in', reason: 'UPSTREAM_AUTH_UNAVAILABLE' });
    t.equal(keyCaller.kind === 'refuse' && keyCaller.refusal.detail.data?.kind, 'token_exchange_needs_access_token');
    const person = runStages(
      TOOL_CALL_STAGES,
      ctx({ auth: exchange, subject: { issuer: 'https://idp.example', sub: 'alice', name: 'Alice' } }),
    );
    t.equal(person.kind, 'forward');
    t.same(person.kind === 'forward' && person.state.signIn, {}, 'no shared secret: the exchanged token is added when forwarding');
  },
);

t.test('a presented approval: what each state leads to', async (t) => {
  const held = { serverWide: ['REQUIRE_APPROVAL' as const], approvalId: 'ap1' };
  const run = (a: Approval | null, over: Partial<CallContext> = {}) => runStages(TOOL_CALL_STAGES, ctx({ ...held, approval: a, ...over }));
  const ok = run(approval());
  t.equal(ok.kind, 'forward');
  t.equal(ok.state.useApproval, 'ap1');
  const pending = run(approval({ status: 'PENDING' }));
  t.match(refusalOf(pending), { reason: 'TOOL_REQUIRES_APPROVAL', hold: { approvalId: 'ap1' } }, 'a pending one is reused');
  t.match(refusalOf(run(approval({ status: 'DENIED' }))), { reason: 'APPROVAL_DENIED' });
  const rejected = (d: Decision) => (d.kind === 'refuse' ? d.refusal.detail.data?.approval_rejected : undefined);
  t.equal(rejected(run(approval({ status: 'USED' }))), 'used');
  t.equal(rejected(run(approval({ status: 'EXPIRED' }))), 'expired');
  t.equal(rejected(run(approval({ expires_at: NOW.toISOString() }))), 'expired', 'approved but past its lifetime');
  t.equal(rejected(run(approval({ status: 'CANCELLED' }))), 'cancelled');
  t.equal(rejected(run(approval({ arguments_hash: argumentsHash({ path: '/b' }) }))), 'arguments_mismatch');
  t.equal(rejected(run(approval({ tool_name: 'other' }))), 'not_found', 'bound to another tool');
  t.equal(rejected(run(approval({ agent_id: 'someone' }))), 'not_found', 'bound to another agent');
  t.equal(rejected(run(approval({ credential_id: 'cred2' }))), 'not_found', 'bound to another credential (same agent, arguments)');
  t.equal(rejected(run(approval({ credential_id: null }))), 'not_found', 'opened before approvals named their credential');
  t.equal(rejected(run(approval({ kind: 'verify' }))), 'not_found');
  t.equal(rejected(run(null)), 'not_found');
  t.equal(refusalOf(run(approval({ status: 'USED' }))).hold?.approvalId, null, 'a new request is made');
  const allowed = runStages(TOOL_CALL_STAGES, ctx({ approvalId: 'ap1', approval: approval() }));
  t.equal(allowed.state.useApproval, undefined, 'an ALLOW call spends no approval');
  t.equal(refusalOf(run(approval(), { serverWide: ['DENY'] })).reason, 'TOOL_DENIED', 'DENY wins over an approval');
});

t.test('canonical argument hash: key order, number spelling, escapes; unicode not normalised', async (t) => {
  const a = JSON.parse('{"b":[1,2],"a":{"y":1.0,"x":"\\u00e9"}}');
  const b = JSON.parse('{"a":{"x":"é","y":1e0},"b":[1,2]}');
  t.equal(argumentsHash(a), argumentsHash(b));
  t.not(argumentsHash({ b: [2, 1] }), argumentsHash({ b: [1, 2] }), 'array order matters');
  t.not(argumentsHash({ x: 'e\u0301' }), argumentsHash({ x: '\u00e9' }), 'no Unicode normalisation');
  t.equal(argumentsHash(undefined), argumentsHash({}));
  t.match(argumentsHash({}), /^sha256:[0-9a-f]{64}$/);
  const split = splitArguments({ path: '/a', [APPROVAL_ARGUMENT]: 'ap1' });
  t.same(split, { forwarded: { path: '/a' }, approvalId: 'ap1' });
  t.equal(argumentsHash((split as { forwarded: Record<string, unknown> }).forwarded), HASH, 'the approval id is not hashed');
  t.ok('invalid' in splitArguments({ [APPROVAL_ARGUMENT]: 5 }));
});

t.test('Mcp-Method / Mcp-Name against the body', async (t) => {
  const call = parseMessage({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather' } }) as RpcMessage;
  const modern = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'get_weather' };
  t.equal(routingMismatch(modern, call), null);
  t.equal(routingMismatch({ ...modern, 'mcp-name': '=?base64?Z2V0X3dlYXRoZXI=?=' }, call), null);
  t.match(routingMismatch({ ...modern, 'mcp-name': 'delete_file' }, call), /Mcp-Name/);
  t.match(routingMismatch({ ...modern, 'mcp-method': 'tools/list' }, call), /Mcp-Method/);
  t.match(routingMismatch({ 'mcp-protocol-version': '2026-07-28' }, call), /missing/);
  t.equal(routingMismatch({ 'mcp-protocol-version': '2025-11-25' }, call), null, 'the 2025 era sends no routing headers');
  t.match(routingMismatch({ 'mcp-method': 'ping' }, call), /Mcp-Method/, 'a header that is sent must agree in any era');
  const read = parseMessage({ jsonrpc: '2.0', id: 2, method: 'resources/read', params: { uri: 'file:///x' } }) as RpcMessage;
  t.equal(routingMismatch({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/read', 'mcp-name': 'file:///x' }, read), null);
  t.ok('invalid' in parseMessage([{ jsonrpc: '2.0', id: 1, method: 'ping' }]));
  t.ok('invalid' in parseMessage({ jsonrpc: '1.0', id: 1, method: 'ping' }));
  t.equal((parseMessage({ jsonrpc: '2.0', id: 3, result: {} }) as RpcMessage).kind, 'response');
});

t.test("upstream headers: an allow-list, the caller's credential never among them", async (t) => {
  const out = upstreamHeaders(
    {
      authorization: 'Bearer gw_caller',
      cookie: 'a=b',
      'x-agent-id': 'ag',
      'x-gateway-approval-id': 'ap',
      'mcp-session-id': 's1',
      'mcp-protocol-version': '2025-11-25',
      'mcp-param-region': 'eu',
      accept: 'application/json, text/event-stream',
      host: 'gateway',
    },
    { 'x-api-key': 'upstream' },
    'POST',
  );
  t.same(out, {
    'mcp-session-id': 's1',
    'mcp-protocol-version': '2025-11-25',
    'mcp-param-region': 'eu',
    accept: 'application/json, text/event-stream',
    'content-type': 'application/json',
    'x-api-key': 'upstream',
  });
});

t.test('tools/list filter: admitted and unchanged (admitted); and not denied for the caller (callable)', async (t) => {
  const tool = (name: string, description = 'd') => ({ name, description, inputSchema: { type: 'object' } });
  const fp = (x: ReturnType<typeof tool>) => toolFingerprint(x);
  const listed = [
    tool('ok'),
    tool('denied'),
    tool('held'),
    tool('changed', 'new text'),
    tool('unknown'),
    tool('never'),
    tool('vanished'),
    { name: 42 },
  ];
  const known = (name: string, over: Record<string, unknown> = {}) =>
    [
      name,
      { approvedHash: fp(tool(name)), present: true, riskLevel: 'low', action: 'read', serverWide: ['ALLOW'], agentRules: [], ...over },
    ] as const;
  const tools = new Map([
    known('ok'),
    known('denied', { serverWide: ['DENY'] }),
    known('held', { serverWide: [] }),
    known('changed'),
    known('never', { approvedHash: null }),
    known('vanished', { present: false }),
  ]);
  const names = (mode: 'admitted' | 'callable') => {
    const result = filterToolsResult({ tools: listed, nextCursor: 'c2' }, { mode, tools, capability: null } as never);
    t.equal(result.nextCursor, 'c2', `${mode}: other fields as they came`);
    return (result.tools as { name: string }[]).map((x) => x.name);
  };
  t.same(names('admitted'), ['ok', 'denied', 'held'], 'admitted: every admitted, unchanged tool whatever its rule');
  t.same(names('callable'), ['ok', 'held'], 'callable: a DENY tool is hidden too');
});

t.test('the decision trace carries tool, server, agent, argument hash, rule and outcome', async (t) => {
  const c = ctx({ agent: { id: 'ag', status: 'ACTIVE', capability: null }, serverWide: ['REQUIRE_APPROVAL'] });
  const d = runStages(TOOL_CALL_STAGES, c);
  const trace = callTrace(
    c,
    d,
    {
      traceId: '00000000-0000-4000-8000-000000000000',
      requestId: 'r1',
      environment: 'prod',
      rpcId: 3,
      requestedAgentId: 'ag',
      arguments: { path: '/a' },
      mode: 'gateway',
    },
    'ap9',
  );
  t.match(trace, { traceType: 'MCP_TOOL_CALL', decision: 'PENDING_APPROVAL', agentId: 'ag' });
  t.match(trace.content, {
    tool: 'delete_file',
    server_id: 'srv',
    agent_id: 'ag',
    credential_id: 'cred1',
    arguments_hash: HASH,
    rule: 'REQUIRE_APPROVAL',
    outcome: 'TOOL_REQUIRES_APPROVAL',
    rpc_code: -32004,
    approval_id: 'ap9',
    stage: 'approval',
    arguments: { path: '/a' },
    upstream_latency_ms: null,
    display: '',
  });
});
