// Content governance on the MCP path, arguments (issue 18): the content-policy API (contract style:
// 201 with the record, list oldest first, errors with the error object, Admin writes, a logged
// admin action) and what a real SDK client sees through the proxy: a secret in the arguments is
// refused before the upstream sees the call, personal data is flagged (or masked before forwarding
// when a policy says REDACT), and the trace holds the findings without a value.
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { activeServer, callTraces, PROXY_ENV, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';

const KEY = 'AKIAZ3MSJV4WWQ5RMNBV';
const CARD = '4929 1234 5678 9015';
const ROUTE = '/api/v1/mcp/content-policies';

t.test('content policies: create, list oldest first with the defaults, change, remove; refusals change nothing', async (t) => {
  const px = await startProxyGateway(t);
  const { gw } = px;
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });

  const first = await gw.api('GET', ROUTE);
  t.equal(first.status, 200);
  t.same(first.body.defaults, {
    arguments: { secrets: 'BLOCK', pii: 'FLAG', injection: 'FLAG' },
    results: { secrets: 'REDACT', pii: 'OFF', injection: 'BLOCK' },
  });
  t.same(first.body.policies, []);

  const a = await gw.api('POST', ROUTE, { body: { direction: 'arguments', detector: 'pii', action: 'BLOCK' } });
  t.equal(a.status, 201);
  t.match(a.body, { id: String, server_id: null, tool_name: null, direction: 'arguments', detector: 'pii', action: 'BLOCK', config: {} });
  const b = await gw.api('POST', ROUTE, {
    body: {
      server_id: server.id,
      tool_name: 'get_weather',
      direction: 'arguments',
      detector: 'pii',
      action: 'REDACT',
      config: { entities: ['CREDIT_CARD'] },
    },
  });
  t.equal(b.status, 201);
  const listed = await gw.api('GET', ROUTE);
  t.same(
    listed.body.policies.map((p: { id: string }) => p.id),
    [a.body.id, b.body.id],
    'oldest first',
  );

  const before = await gw.db`select count(*)::int as n from mcp_content_policies`;
  const refused: [string, unknown, number, string][] = [
    ['the same scope twice', { direction: 'arguments', detector: 'pii', action: 'FLAG' }, 409, 'mcp_content_policy_exists'],
    ['a tool without its server', { tool_name: 'x', direction: 'results', detector: 'pii', action: 'FLAG' }, 400, 'validation_error'],
    ['injection cannot be redacted', { direction: 'results', detector: 'injection', action: 'REDACT' }, 400, 'validation_error'],
    [
      'a configuration its detector refuses',
      { direction: 'results', detector: 'injection', action: 'BLOCK', config: { block_threshold: 7 } },
      400,
      'validation_error',
    ],
    ['an unknown detector', { direction: 'results', detector: 'keywords', action: 'FLAG' }, 400, 'validation_error'],
    ['an unknown field', { direction: 'results', detector: 'pii', action: 'FLAG', extra: 1 }, 400, 'validation_error'],
    ['a server of nobody', { server_id: 'nope', direction: 'results', detector: 'pii', action: 'FLAG' }, 404, 'not_found'],
  ];
  for (const [what, body, status, code] of refused) {
    const res = await gw.api('POST', ROUTE, { body });
    t.equal(res.status, status, what);
    t.equal(res.body.error.code, code, what);
  }
  const viewer = (await gw.api('POST', '/api/v1/keys', { body: { name: 'v', role: 'viewer' } })).body.key;
  t.equal((await gw.api('POST', ROUTE, { token: viewer, body: { direction: 'results', detector: 'pii', action: 'FLAG' } })).status, 403);
  t.equal((await gw.api('GET', ROUTE, { token: viewer })).status, 200, 'any role reads');
  t.equal((await gw.api('PATCH', `${ROUTE}/${a.body.id}`, { body: { action: 'REDACT', config: { nope: 1 } } })).status, 400);
  t.same(await gw.db`select count(*)::int as n from mcp_content_policies`, before, 'a refusal writes nothing');

  const patched = await gw.api('PATCH', `${ROUTE}/${a.body.id}`, { body: { action: 'FLAG' } });
  t.equal(patched.status, 200);
  t.equal(patched.body.action, 'FLAG');
  t.equal((await gw.api('PATCH', `${ROUTE}/nope`, { body: { action: 'FLAG' } })).status, 404);
  t.same((await gw.api('DELETE', `${ROUTE}/${b.body.id}`)).body, { id: b.body.id, deleted: true });
  t.equal((await gw.api('DELETE', `${ROUTE}/${b.body.id}`)).status, 404);

  const changes = await gw.db<{ action_name: string }[]>`
    select action_name from traces where trace_type = 'POLICY_CHANGE' and action_name like 'mcp.content_policy.%' order by sequence_num`;
  t.same(
    changes.map((c) => c.action_name),
    ['mcp.content_policy.create', 'mcp.content_policy.create', 'mcp.content_policy.update', 'mcp.content_policy.delete'],
    'every change is a POLICY_CHANGE trace',
  );
  const logged = await gw.db`select count(*)::int as n from admin_log where action like 'mcp.content_policy.%'`;
  t.equal(logged[0]!.n, 4, 'and an admin-log entry');
});

t.test('arguments through the proxy, real SDK clients: a secret never reaches the upstream; personal data flagged or masked', async (t) => {
  const px = await startProxyGateway(t);
  const { gw } = px;
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const url = new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`);
  const init = { requestInit: { headers: { authorization: `Bearer ${gw.adminToken}` } } };

  const legacy = new Client({ name: 'content-test', version: '1.0.0' });
  await legacy.connect(new StreamableHTTPClientTransport(url, init));
  t.teardown(() => legacy.close());
  const modern = new ModernClient({ name: 'content-test-2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new ModernTransport(url, init));
  t.teardown(() => modern.close());

  for (const [name, client] of [
    ['SDK 1.x', legacy],
    ['SDK 2.x', modern],
  ] as const) {
    const err = await (client as Client).callTool({ name: 'get_weather', arguments: { city: `Paris; aws ${KEY}` } }).then(
      () => null,
      (e: unknown) => e,
    );
    t.ok(err instanceof Error, `${name}: refused`);
    const e = err as McpError;
    t.equal(e.code, -32003, `${name}: -32003`);
    t.match(e.data, { reason: 'CONTENT_BLOCKED', findings: [{ detector: 'secrets', entity: 'AWS_ACCESS_KEY', path: '$.city' }] });
    t.notMatch(JSON.stringify(e.data), KEY, `${name}: the value is not echoed`);
  }
  t.equal(up.calls(), 0, 'the upstream never saw a refused call');

  const flagged = await legacy.callTool({ name: 'get_weather', arguments: { city: `card ${CARD}` } });
  t.match(
    flagged,
    { content: [{ type: 'text', text: JSON.stringify({ city: `card ${CARD}` }) }] },
    'personal data goes through by default',
  );
  t.equal(up.calls(), 1);

  const set = await gw.api('POST', ROUTE, {
    body: { server_id: server.id, tool_name: 'get_weather', direction: 'arguments', detector: 'pii', action: 'REDACT' },
  });
  t.equal(set.status, 201);
  await gw.settled();
  const masked = await legacy.callTool({ name: 'get_weather', arguments: { city: `card ${CARD}` } });
  t.same(up.argumentsSeen.at(-1), { city: 'card [CREDIT_CARD_1]' }, 'masked before forwarding');
  t.match(masked, { content: [{ text: JSON.stringify({ city: 'card [CREDIT_CARD_1]' }) }] });

  const traces = await callTraces(gw);
  t.same(
    traces.map((x) => x.decision),
    ['BLOCKED', 'BLOCKED', 'FLAGGED', 'MODIFIED'],
  );
  t.match(traces[0]!.body, {
    outcome: 'CONTENT_BLOCKED',
    stage: 'content',
    content_findings: { arguments: [{ detector: 'secrets', entity: 'AWS_ACCESS_KEY', path: '$.city', effect: 'BLOCK' }] },
  });
  t.match(traces[2]!.body.content_findings, { arguments: [{ entity: 'CREDIT_CARD', effect: 'FLAG' }] });
  t.match(traces[3]!.body.content_findings, { arguments: [{ entity: 'CREDIT_CARD', effect: 'REDACT' }] });
  const stored = JSON.stringify(await gw.db`select body from trace_content`);
  t.notMatch(stored, KEY, 'no stored trace holds the key');
  t.notMatch(stored, '4929 1234', 'nor the card number');
});

t.test('a held call carries its findings to the approver', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'REQUIRE_APPROVAL' });
  const res = await px.callTool(server.id, 'get_weather', { city: `card ${CARD}` });
  t.equal(res.body.error.code, -32004);
  const approvals = await px.call('GET', '/api/v1/mcp/approvals');
  t.equal(approvals.status, 200);
  const [held] = approvals.body.approvals as { id: string; findings: unknown[] }[];
  t.equal(held!.id, res.body.error.data.approval_id);
  t.same(held!.findings, [{ detector: 'pii', entity: 'CREDIT_CARD', path: '$.city', effect: 'FLAG' }]);
  const one = await px.call('GET', `/api/v1/approvals/${held!.id}`);
  t.equal(one.status, 200);
  t.match(one.body, { id: held!.id, server_name: server.name, tool_name: 'get_weather', arguments: { city: 'card [CREDIT_CARD_1]' } });
  t.notMatch(JSON.stringify(one.body), '4929', 'the arguments as the trace keeps them: masked');
  t.equal((await px.call('GET', '/api/v1/approvals/nope')).status, 404);
});

t.test('a policy change reaches a second daemon through its state cache', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const d2 = await startTestGateway(t, { databaseUrl: px.gw.databaseUrl, env: PROXY_ENV });
  const onD2 = async () =>
    (
      await d2.api('POST', `/api/v1/mcp/proxy/${server.id}`, {
        token: px.gw.adminToken,
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_weather', arguments: { city: `aws ${KEY}` } } },
      })
    ).body;
  t.match(await onD2(), { error: { code: -32003, data: { reason: 'CONTENT_BLOCKED' } } }, 'daemon 2: the default refuses');
  t.match(await onD2(), { error: { data: { reason: 'CONTENT_BLOCKED' } } }, 'daemon 2 again, from its cache');
  const off = await px.gw.api('POST', ROUTE, {
    body: { server_id: server.id, direction: 'arguments', detector: 'secrets', action: 'OFF' },
  });
  t.equal(off.status, 201);
  t.ok(await eventually(async () => 'result' in (await onD2())), 'daemon 2 forwards once the notification arrives');
  t.equal(up.calls(), 1);
});
