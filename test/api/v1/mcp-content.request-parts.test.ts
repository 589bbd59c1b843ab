// Every part of a request the upstream can read is inspected with the argument
// policies: params._meta and other members of a tools/call's params, the uri of resources/read, the
// arguments of prompts/get, the value of completion/complete (through the official SDK client); and an
// Mcp-Param-* header that disagrees with the body, or names no declared argument, is refused before
// any decision (400, -32020), while one that agrees goes upstream with the value forwarded (masked
// when a REDACT policy masked the argument). A 2026-07-28 SDK client's own headers pass.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { activeServer, type ProxyGateway, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';
import { startModernMcpServer, type ToolDef } from '../../helpers/mcp-servers.js';

const GHP = 'ghp_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa1eRu5o';
const CARD = '4929 1234 5678 9015';
const TOOLS: readonly ToolDef[] = [
  {
    name: 'fetch',
    description: 'Fetches a path.',
    inputSchema: { type: 'object', properties: { path: { type: 'string', 'x-mcp-header': 'Path' } }, required: ['path'] },
  },
];

async function sdkClient(t: Test, px: ProxyGateway, serverId: string): Promise<Client> {
  const client = new Client({ name: 'request-parts', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${serverId}`), {
      requestInit: { headers: { authorization: `Bearer ${px.gw.adminToken}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

const refusal = (p: Promise<unknown>) =>
  p.then(
    () => null,
    (e: unknown) => e as McpError & { data?: { reason?: string; findings?: { entity: string; path: string }[] } },
  );

t.test('params beyond the arguments, and the parts of other requests, are inspected (SDK 1.x client)', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t, { tools: TOOLS });
  const server = await activeServer(px, up.url, { fetch: 'ALLOW' });
  const client = await sdkClient(t, px, server.id);
  const cases: [string, () => Promise<unknown>, string][] = [
    [
      'tools/call params._meta',
      () => client.callTool({ name: 'fetch', arguments: { path: '/tmp/a' }, _meta: { note: GHP } }),
      'params._meta.note',
    ],
    ['resources/read uri', () => client.readResource({ uri: `https://example.com/x?token=${GHP}` }), 'params.uri'],
    ['prompts/get arguments', () => client.getPrompt({ name: 'summary', arguments: { text: GHP } }), 'params.arguments.text'],
    [
      'completion/complete value',
      () => client.complete({ ref: { type: 'ref/prompt', name: 'summary' }, argument: { name: 'text', value: GHP } }),
      'params.argument.value',
    ],
  ];
  for (const [what, call, path] of cases) {
    const err = await refusal(call());
    t.equal(err?.code, -32003, `${what}: refused`);
    t.equal(err?.data?.reason, 'CONTENT_BLOCKED', what);
    t.match(err?.data?.findings, [{ entity: 'GITHUB_TOKEN', path }], `${what}: named at ${path}`);
    t.notMatch(JSON.stringify(err?.data ?? {}), GHP.slice(4, 20), `${what}: the refusal does not carry the token`);
  }
  t.equal(up.calls(), 0, 'the upstream saw no tools/call');
  t.same(
    up.seen.filter((s) => ['resources/read', 'prompts/get', 'completion/complete'].includes(s.rpcMethod ?? '')),
    [],
    'nor any of the other requests',
  );
  const traces = await px.gw.db<{ decision: string; method: string | null; direction: string }[]>`
    select t.decision, c.body->>'method' as method, c.body->>'direction' as direction
    from traces t join trace_content c on c.trace_id = t.id where t.trace_type in ('MCP_CONTENT', 'MCP_TOOL_CALL') order by t.sequence_num`;
  t.same(
    traces.map((r) => [r.decision, r.method, r.direction]),
    [
      ['BLOCKED', null, null],
      ['BLOCKED', 'resources/read', 'arguments'],
      ['BLOCKED', 'prompts/get', 'arguments'],
      ['BLOCKED', 'completion/complete', 'arguments'],
    ],
    'each refusal traced: the call by its decision, the others by an MCP_CONTENT trace',
  );
  t.notMatch(JSON.stringify(await px.gw.db`select body from trace_content`), GHP.slice(4, 20), 'no trace holds the token');
  const clean = await client.callTool({ name: 'fetch', arguments: { path: '/tmp/a' }, _meta: { progressToken: 'b6f1c2de-5a7e-4f0b' } });
  t.notOk(clean.isError, 'clean params pass');
});

t.test('Mcp-Param-* headers on a relayed session: refused unless they agree with the body', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t, { tools: TOOLS, response: 'json', stateless: true });
  const server = await activeServer(px, up.url, { fetch: 'ALLOW' });
  const relayed = { 'mcp-protocol-version': '2025-06-18' };
  const call = (path: string, headers: Record<string, string>) =>
    px.callTool(server.id, 'fetch', { path }, { headers: { ...relayed, ...headers } });

  const shadow = await call('/tmp/safe', { 'mcp-param-path': '/etc/shadow' });
  t.equal(shadow.status, 400);
  t.match(shadow.body, {
    id: 1,
    error: { code: -32020, data: { reason: 'HEADER_MISMATCH', detail: /Mcp-Param-path header does not match arguments\.path/ } },
  });
  const undeclared = await call('/tmp/safe', { 'mcp-param-region': 'eu' });
  t.match(undeclared.body, { error: { code: -32020, data: { detail: /names no argument the tool declares/ } } });
  const listed = await px.rpc(
    server.id,
    { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    { headers: { ...relayed, 'mcp-param-path': '/x' } },
  );
  t.match(listed.body, { error: { code: -32020 } }, 'on another method: refused');
  t.equal(up.calls(), 0, 'none of them reached the upstream');
  t.equal(
    (await px.gw.db`select count(*)::int as n from traces where trace_type in ('MCP_TOOL_CALL', 'MCP_CONTENT')`)[0]!.n,
    0,
    'refused before any decision: no trace',
  );

  const agreed = await call('/tmp/safe', { 'mcp-param-path': '/tmp/safe' });
  t.equal(agreed.status, 200, agreed.text);
  t.equal(up.seen.at(-1)?.headers['mcp-param-path'], '/tmp/safe', 'an agreeing header goes on');

  const res = await px.gw.api('POST', '/api/v1/mcp/content-policies', {
    body: { direction: 'arguments', detector: 'pii', action: 'REDACT' },
  });
  t.equal(res.status, 201, res.text);
  await px.gw.settled();
  const masked = await call(`/cards/${CARD}`, { 'mcp-param-path': `/cards/${CARD}` });
  t.equal(masked.status, 200, masked.text);
  t.same(up.argumentsSeen.at(-1), { path: '/cards/[CREDIT_CARD_1]' });
  t.equal(up.seen.at(-1)?.headers['mcp-param-path'], '/cards/[CREDIT_CARD_1]', 'the header carries the masked value, not the card');
});

t.test("a 2026-07-28 SDK client's own Mcp-Param-* headers agree and pass", async (t) => {
  const px = await startProxyGateway(t);
  const up = await startModernMcpServer(t, { tools: TOOLS, legacy: 'reject' });
  const server = await activeServer(px, up.url, { fetch: 'ALLOW' });
  const client = new ModernClient({ name: 'request-parts-2', version: '2.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(
    new ModernTransport(new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`), {
      requestInit: { headers: { authorization: `Bearer ${px.gw.adminToken}` } },
    }),
  );
  t.teardown(() => client.close());
  await client.listTools();
  const result = await client.callTool({ name: 'fetch', arguments: { path: '/tmp/ünïcode' } });
  t.notOk(result.isError, JSON.stringify(result));
  const sent = up.seen.find((s) => s.rpcMethod === 'tools/call');
  t.match(sent?.headers['mcp-param-path'], /^=\?base64\?/, 'the client sent its header (base64: not plain ASCII) and it went on');
});

t.test('an approval binds the members of params beside the arguments; an Mcp-Param-* header cannot change the approved call', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t, { tools: TOOLS, response: 'json', stateless: true });
  const server = await activeServer(px, up.url, { fetch: 'REQUIRE_APPROVAL' });
  const alice = await px.gw.key('admin', 'alice');
  const call = (params: Record<string, unknown>, headers: Record<string, string> = {}) =>
    px.rpc(
      server.id,
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'fetch', arguments: { path: '/tmp/safe' }, ...params } },
      { headers: { 'mcp-protocol-version': '2025-06-18', ...headers } },
    );
  const held = await call({ mode: 'read' });
  t.match(held.body.error, { code: -32004 });
  const approvalId = held.body.error.data.approval_id as string;
  const decided = await px.call('POST', `/api/v1/mcp/approvals/${approvalId}/decide`, { token: alice, body: { approved: true } });
  t.equal(decided.status, 200, decided.text);

  const other = await call({ mode: 'delete' }, { 'x-gateway-approval-id': approvalId });
  t.match(
    other.body.error,
    { code: -32004, data: { approval_rejected: 'arguments_mismatch' } },
    'another params member: not the approved call',
  );
  const shadow = await call({ mode: 'read' }, { 'x-gateway-approval-id': approvalId, 'mcp-param-path': '/etc/shadow' });
  t.equal(shadow.status, 400, 'a header naming another path: refused');
  t.equal(up.calls(), 0, 'neither reached the upstream');
  const approved = await call(
    { mode: 'read', _meta: { progressToken: 7 } },
    { 'x-gateway-approval-id': approvalId, 'mcp-param-path': '/tmp/safe' },
  );
  t.equal(approved.status, 200, approved.text);
  t.notOk(approved.body.error, 'the approved call, its header agreeing and a progress token of its own, goes through');
  t.equal(up.calls(), 1);
  t.equal(up.seen.at(-1)?.headers['mcp-param-path'], '/tmp/safe');
});
