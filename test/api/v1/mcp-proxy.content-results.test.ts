// Content governance on the MCP path, results (issue 18): what comes back from an upstream an
// attacker controls (test/helpers/hostile-content-server.ts, the official SDK) reaches real SDK
// clients (1.x and 2.x) through the proxy only as the default results policies allow: injection in
// a tool result, in structured content, in a page streamed after progress notifications or in a
// resource is withheld; a cloud key in a result is masked; a sampling request carrying injection is
// refused to the server and never shown to the client; an image passes. Each case's MCP_CONTENT
// trace holds the findings and no raw value.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { runCli } from '../../helpers/cli.js';
import type { TestGateway } from '../../helpers/gateway.js';
import {
  CLOUD_KEY,
  type HostileServer,
  IMAGE_DATA,
  INJECTED_ISSUE,
  startHostileContentServer,
} from '../../helpers/hostile-content-server.js';
import { eventually } from '../../helpers/eventually.js';
import { activeServer, startProxyGateway, type ProxyGateway } from '../../helpers/mcp-proxy.js';

const RULES = {
  read_issue: 'ALLOW',
  fetch_page: 'ALLOW',
  show_config: 'ALLOW',
  structured_issue: 'ALLOW',
  summarise: 'ALLOW',
  summarise_later: 'ALLOW',
  weather: 'ALLOW',
};
const SAMPLED = { model: 'm', role: 'assistant' as const, content: { type: 'text' as const, text: 'a summary' } };

interface Setup {
  px: ProxyGateway;
  serverId: string;
  url: URL;
  sampled: string[];
  up: HostileServer;
}

async function setUp(t: Test, response: 'json' | 'sse' = 'sse'): Promise<Setup> {
  const px = await startProxyGateway(t);
  const up = await startHostileContentServer(t, { response });
  const s = await activeServer(px, up.url, RULES);
  return { px, serverId: s.id, url: new URL(`${px.url}/api/v1/mcp/proxy/${s.id}`), sampled: [], up };
}

async function legacyClient(t: Test, x: Setup, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'results-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, (req) => {
    x.sampled.push(JSON.stringify(req.params));
    return SAMPLED;
  });
  await client.connect(
    new StreamableHTTPClientTransport(x.url, { requestInit: { headers: { authorization: `Bearer ${x.px.gw.adminToken}`, ...headers } } }),
  );
  t.teardown(() => client.close());
  return client;
}

const textOf = (result: unknown) =>
  (result as { content: { type: string; text?: string }[] }).content.map((c) => c.text ?? c.type).join('\n');

/** MCP_CONTENT traces, once `count` are there: each is written just after its answer went out. */
async function contentTraces(gw: TestGateway, count: number) {
  await eventually(async () => (await gw.db`select count(*)::int as n from traces where trace_type = 'MCP_CONTENT'`)[0]!.n >= count);
  // biome-ignore lint/suspicious/noExplicitAny: the stored trace content, read by path in tests
  return gw.db<{ id: string; decision: string; body: Record<string, any> }[]>`
    select t.id::text as id, t.decision, c.body from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_CONTENT' order by t.sequence_num`;
}

t.test('SDK 1.x, SSE answers: withheld, masked, refused to the server, passed', async (t) => {
  const x = await setUp(t);
  const client = await legacyClient(t, x);

  const issue = await client.callTool({ name: 'read_issue', arguments: {} });
  t.equal(issue.isError, true, 'a valid result with isError');
  t.match(
    textOf(issue),
    /^The gateway withheld this result: a content policy found PROMPT_INJECTION in \$\.content\[0\]\.text\. Trace [0-9a-f-]{36}\.$/,
  );
  t.notMatch(textOf(issue), /ssh|attacker/, 'nothing of the original');

  const progress: number[] = [];
  const page = await client.callTool({ name: 'fetch_page', arguments: {} }, undefined, { onprogress: (p) => progress.push(p.progress) });
  // Since issue 26 the data head withholds on its own: "now ign" + "ore all previous instruc" is already
  // an override to it, so the second message is dropped (before, it was flagged and the third dropped).
  t.same(progress, [1], 'progress passes on until its messages, joined, carry an instruction: the completing one is dropped');
  t.equal(page.isError, true, 'the page after them is withheld');

  const structured = await client.callTool({ name: 'structured_issue', arguments: {} });
  t.equal(structured.isError, true, 'structured content is inspected too');
  t.equal(structured.structuredContent, undefined);

  const config = await client.callTool({ name: 'show_config', arguments: {} });
  t.equal(config.isError, undefined);
  t.equal(textOf(config), 'region: eu-west-1\naws_access_key_id: [AWS_ACCESS_KEY_1]\nreplicas: 3', 'the key masked, the rest unchanged');

  const summary = await client.callTool({ name: 'summarise', arguments: {} });
  t.same(x.sampled, [], 'the client never saw the sampling request');
  t.match(textOf(summary), /sampling failed: .*-32003.*refused this sampling\/createMessage request/, 'the server got -32003 instead');

  const weather = await client.callTool({ name: 'weather', arguments: {} });
  t.match(
    weather.content,
    [
      { type: 'text', text: 'Sunny.' },
      { type: 'image', data: IMAGE_DATA },
    ],
    'binary content passes',
  );

  const read = await client.readResource({ uri: 'file:///notes/readme.md' }).then(
    () => null,
    (e: unknown) => e,
  );
  t.ok(read instanceof McpError, 'a resource carrying injection: an error, not the contents');
  t.equal((read as McpError).code, -32003);
  t.match((read as McpError).data, { reason: 'CONTENT_BLOCKED', findings: [{ entity: 'PROMPT_INJECTION', path: '$.contents[0].text' }] });

  const traces = await contentTraces(x.px.gw, 6);
  t.same(
    traces.map((r) => [r.body.tool ?? r.body.method, r.decision, r.body.outcomes]),
    [
      ['read_issue', 'BLOCKED', ['withheld']],
      ['fetch_page', 'BLOCKED', ['dropped', 'withheld']],
      ['structured_issue', 'BLOCKED', ['withheld']],
      ['show_config', 'MODIFIED', ['masked']],
      ['summarise', 'BLOCKED', ['refused_to_server']],
      ['resources/read', 'BLOCKED', ['withheld']],
    ],
    'one MCP_CONTENT trace per answer with findings; the clean one writes none',
  );
  t.match(traces[0]!.body, {
    direction: 'results',
    method: 'tools/call',
    call_trace_id: String,
    content_findings: { results: [{ detector: 'injection', entity: 'PROMPT_INJECTION', path: '$.content[0].text', effect: 'BLOCK' }] },
  });
  t.match(traces[2]!.body.content_findings.results, [{ path: '$.structuredContent.issue.body' }]);
  t.match(traces[3]!.body.content_findings.results, [{ detector: 'secrets', entity: 'AWS_ACCESS_KEY', effect: 'REDACT' }]);
  const calls = await x.px.gw.db`select id::text as id from traces where trace_type = 'MCP_TOOL_CALL' order by sequence_num`;
  t.equal(traces[0]!.body.call_trace_id, calls[0]!.id, 'linked to the call decision');
  t.match(textOf(issue), traces[0]!.id, 'the withheld answer names the trace');
  const stored = JSON.stringify(await x.px.gw.db`select body from trace_content`);
  t.notMatch(stored, CLOUD_KEY, 'no trace holds the key');
  t.notMatch(stored, INJECTED_ISSUE.slice(-60), 'nor the injected text');

  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-results-'));
  t.teardown(() => fs.rm(home, { recursive: true, force: true }));
  const shown = await runCli(['traces', 'get', traces[0]!.id], home, {
    GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
    GATEWAY_URL: x.px.url,
    GATEWAY_TOKEN: x.px.gw.adminToken,
  });
  t.equal(shown.code, 0, shown.stderr);
  t.match(shown.stdout, /MCP_CONTENT/);
  t.match(shown.stdout, /PROMPT_INJECTION/, 'gatewayctl traces get shows the findings');
  t.match(shown.stdout, /\$\.content\[0\]\.text/);
  t.notMatch(shown.stdout, /attacker\.example/);
});

t.test('SDK 2.x client, and a bare JSON-RPC call through the gateway session, JSON answers', async (t) => {
  const x = await setUp(t, 'json');
  const modern = new ModernClient({ name: 'results-test-2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await modern.connect(new ModernTransport(x.url, { requestInit: { headers: { authorization: `Bearer ${x.px.gw.adminToken}` } } }));
  t.teardown(() => modern.close());
  const issue = await modern.callTool({ name: 'read_issue', arguments: {} });
  t.equal(issue.isError, true);
  t.match(textOf(issue), /withheld/);
  const config = await modern.callTool({ name: 'show_config', arguments: {} });
  t.match(textOf(config), /\[AWS_ACCESS_KEY_1\]/);

  const bare = await x.px.callTool(x.serverId, 'read_issue', {});
  t.equal(bare.status, 200);
  t.equal(bare.body.result.isError, true, 'the gateway session path inspects too');
  t.match(bare.body.result.content[0].text, /withheld/);
  const bareRead = await x.px.rpc(x.serverId, {
    jsonrpc: '2.0',
    id: 9,
    method: 'resources/read',
    params: { uri: 'file:///notes/readme.md' },
  });
  t.match(bareRead.body, { id: 9, error: { code: -32003, data: { reason: 'CONTENT_BLOCKED' } } });
  t.equal((await contentTraces(x.px.gw, 4)).length, 4);
});

t.test('results policies: OFF passes the original, FLAG passes and records, per tool', async (t) => {
  const x = await setUp(t);
  const { gw } = x.px;
  const client = await legacyClient(t, x);
  const set = async (body: Record<string, unknown>) => {
    const res = await gw.api('POST', '/api/v1/mcp/content-policies', { body: { server_id: x.serverId, direction: 'results', ...body } });
    t.equal(res.status, 201, res.text);
    await gw.settled();
  };
  await set({ tool_name: 'read_issue', detector: 'injection', action: 'OFF' });
  await set({ detector: 'injection', action: 'FLAG' });
  const off = await client.callTool({ name: 'read_issue', arguments: {} });
  t.equal(textOf(off), INJECTED_ISSUE, 'OFF for this tool: the original');
  const flagged = await client.callTool({ name: 'fetch_page', arguments: {} });
  t.match(textOf(flagged), /display:none/, 'FLAG for the server: passed on');
  const traces = await contentTraces(gw, 1);
  t.same(
    traces.map((r) => [r.body.tool, r.decision]),
    [['fetch_page', 'FLAGGED']],
    'OFF looks at nothing; FLAG records',
  );
});

t.test(
  "a server's request on the session's GET stream is inspected: refused to the server, traced in the caller's environment",
  async (t) => {
    const x = await setUp(t);
    const client = await legacyClient(t, x, { 'x-gateway-environment': 'staging' });
    // The client opens its GET stream on its own time after connecting; a request sent before is lost.
    await eventually(async () => x.up.getStreams() > 0);
    const later = await client.callTool({ name: 'summarise_later', arguments: {} });
    t.same(x.sampled, [], 'the client never saw the sampling request');
    t.match(textOf(later), /sampling failed: .*-32003.*refused this sampling\/createMessage request/, 'the server got -32003 instead');
    await client.close(); // the GET stream's trace is written when the stream ends
    const [trace] = await contentTraces(x.px.gw, 1);
    t.match(trace, { decision: 'BLOCKED', body: { method: null, call_trace_id: null, outcomes: ['refused_to_server'] } });
    const [row] = await x.px.gw.db`select environment from traces where id = ${trace!.id}`;
    t.equal(row!.environment, 'staging', "the stream's trace carries the environment its client named");
  },
);
