// Real MCP clients of both protocol eras through the proxy (issue 8, "Real clients"): the official
// SDK 1.x Client and the 2.x @modelcontextprotocol/client, with StreamableHTTPClientTransport
// pointed at /api/v1/mcp/proxy/{id}, against server-everything, a 2026-07-28 SDK server and a
// counting SDK server. The proxy must be a transparent MCP endpoint: what a client does directly
// against a server works the same through it (tools, progress, server-to-client requests on the
// request's stream and on the GET stream, resources, prompts, logging, DELETE), only governed.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CreateMessageRequestSchema,
  ElicitRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { startEverythingServer, startModernMcpServer } from '../../helpers/mcp-servers.js';
import { activeServer, callTraces, startCountingServer, startProxyGateway, type ProxyGateway } from '../../helpers/mcp-proxy.js';

/** server-everything's tools: the ones the tests call are allowed, get-env denied, the rest held. */
const EVERYTHING_RULES = {
  echo: 'ALLOW',
  'get-sum': 'ALLOW',
  'trigger-long-running-operation': 'ALLOW',
  'trigger-sampling-request': 'ALLOW',
  'trigger-elicitation-request': 'ALLOW',
  'get-roots-list': 'ALLOW',
  'toggle-simulated-logging': 'ALLOW',
  'get-env': 'DENY',
};
const SAMPLED = { model: 'test-model', role: 'assistant' as const, content: { type: 'text' as const, text: 'the sampled answer' } };
const ROOTS = [{ uri: 'file:///srv/project', name: 'project' }];

const proxyUrl = (px: ProxyGateway, serverId: string) => `${px.url}/api/v1/mcp/proxy/${serverId}`;
const bearer = (token: string | undefined) => (token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
const texts = (result: unknown) => (result as { content: { type: string; text?: string }[] }).content.map((c) => c.text ?? c.type);

/** An SDK 1.x client that can answer sampling, elicitation and roots requests. */
async function legacyClient(t: Test, url: string, token?: string): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client(
    { name: 'clients-test', version: '1.0.0' },
    { capabilities: { sampling: {}, elicitation: {}, roots: { listChanged: true } } },
  );
  client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED);
  client.setRequestHandler(ElicitRequestSchema, () => ({ action: 'accept', content: { name: 'Ada', check: true } }));
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: ROOTS }));
  const transport = new StreamableHTTPClientTransport(new URL(url), bearer(token));
  await client.connect(transport);
  t.teardown(() => client.close());
  return { client, transport };
}

/** A 2.x client; `pin` asks for 2026-07-28 only, `auto` probes and falls back to the 2025 era. */
async function modernClient(t: Test, url: string, mode: 'pin' | 'auto', token?: string): Promise<ModernClient> {
  const client = new ModernClient(
    { name: 'clients-test-2', version: '2.0.0' },
    {
      capabilities: { sampling: {}, elicitation: {} },
      versionNegotiation: { mode: mode === 'pin' ? { pin: '2026-07-28' } : 'auto' },
    },
  );
  client.setRequestHandler('elicitation/create', () => ({ action: 'accept', content: { ok: true } }));
  client.setRequestHandler('sampling/createMessage', () => SAMPLED);
  await client.connect(new ModernTransport(new URL(url), bearer(token)));
  t.teardown(() => client.close());
  return client;
}

/** Status and body of a bare GET or DELETE (no session) on an MCP endpoint. */
async function raw(url: string, method: string, token?: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, {
    method,
    headers: { accept: 'text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  return { status: res.status, body: await res.text() };
}

/** What the SDK 1.x client gets from server-everything, minus its tool list (the proxy filters that). */
async function everythingScript(client: Client) {
  const progress: string[] = [];
  const resources = (await client.listResources()).resources;
  return {
    prompts: (await client.listPrompts()).prompts.map((p) => p.name).sort(),
    prompt: await client.getPrompt({ name: 'simple-prompt' }),
    resources,
    read: await client.readResource({ uri: resources[0]!.uri }),
    templates: (await client.listResourceTemplates()).resourceTemplates,
    echo: await client.callTool({ name: 'echo', arguments: { message: 'same' } }),
    sum: await client.callTool({ name: 'get-sum', arguments: { a: 2, b: 3 } }),
    long: await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 4 } }, undefined, {
      onprogress: (p) => {
        progress.push(`${p.progress}/${p.total}`);
      },
    }),
    sampled: await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'same', maxTokens: 5 } }),
    progress,
  };
}

t.test(
  'SDK 1.x client and server-everything through the proxy: tools, progress, sampling, elicitation, roots, resources, prompts, logging, DELETE',
  async (t) => {
    const px = await startProxyGateway(t);
    const up = await startEverythingServer(t);
    const s = await activeServer(px, up.url, EVERYTHING_RULES, { noRule: ['get-tiny-image'] });
    t.ok(
      s.tools['trigger-sampling-request'] && s.tools['trigger-elicitation-request'] && s.tools['get-roots-list'],
      'the scan saw the tools server-everything offers only to clients able to answer sampling, elicitation and roots requests',
    );
    const { client, transport } = await legacyClient(t, proxyUrl(px, s.id), px.gw.adminToken);
    t.equal(client.getServerVersion()?.name, 'mcp-servers/everything');
    t.equal((await px.gw.db`select count(*)::int as n from mcp_proxy_sessions`)[0]!.n, 1, 'the session is bound to the credential');

    const names = (await client.listTools()).tools.map((x) => x.name);
    t.ok(names.includes('get-env'), 'a DENY tool is listed: tools/list is not a rule decision (mcp_tools_list admitted)');
    t.ok(names.includes('get-tiny-image'), 'a tool without a rule is listed: it is held for approval, callable once approved');
    t.ok(names.includes('trigger-sampling-request'));

    t.same(texts(await client.callTool({ name: 'echo', arguments: { message: 'hi' } })), ['Echo: hi']);

    const events: string[] = [];
    const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 } }, undefined, {
      onprogress: (p) => {
        events.push(`progress ${p.progress}/${p.total}`);
      },
    });
    events.push('result');
    t.same(
      events,
      ['progress 1/4', 'progress 2/4', 'progress 3/4', 'progress 4/4', 'result'],
      'every progress event, in order, before the result',
    );
    t.match(texts(long)[0], /completed/);

    // The server waits for the client's answer before it finishes the call's SSE response: these
    // can only complete if the proxy streams each event through as it arrives.
    const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } });
    t.match(texts(sampled)[0], /the sampled answer/, 'sampling/createMessage reached the client and its answer the server');
    const elicited = await client.callTool({ name: 'trigger-elicitation-request', arguments: {} });
    t.match(texts(elicited).join('\n'), /- Name: Ada/, 'elicitation/create reached the client and its answer the server');
    // roots/list travels on the GET stream, the client's answer comes back as a POSTed response.
    const rooted = await client.callTool({ name: 'get-roots-list', arguments: {} });
    t.match(
      texts(rooted).join('\n'),
      /file:\/\/\/srv\/project/,
      'a server-to-client request on the GET stream, answered through the proxy',
    );
    const sessionHeaders = { 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': transport.protocolVersion! };
    const note = await px.rpc(s.id, { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { headers: sessionHeaders });
    t.equal(note.status, 202, "a notification gets the upstream's 202");
    t.equal(note.text, '');

    const resources = (await client.listResources()).resources;
    t.ok(resources.length > 0, 'resources/list');
    const read = await client.readResource({ uri: resources[0]!.uri });
    t.equal(read.contents[0]?.uri, resources[0]!.uri, 'resources/read');
    t.ok(
      (await client.listPrompts()).prompts.some((p) => p.name === 'simple-prompt'),
      'prompts/list',
    );
    t.ok((await client.getPrompt({ name: 'simple-prompt' })).messages.length > 0, 'prompts/get');

    const logged = new Promise<{ level: string; data: unknown }>((resolve) => {
      // Only the simulated messages name the session; "Roots updated" ones may come first.
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        if (String(n.params.data).includes('SessionId')) resolve(n.params);
      });
    });
    await client.setLoggingLevel('debug');
    await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    const message = await logged;
    t.match(
      String(message.data),
      new RegExp(`SessionId ${transport.sessionId}$`),
      'a logging notification on the GET stream, for this session',
    );
    await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });

    const denied = await client.callTool({ name: 'get-env', arguments: {} }).then(
      () => null,
      (err: unknown) => err,
    );
    t.ok(denied instanceof McpError, 'a refusal is an McpError');
    t.match(denied, { code: -32003, data: { reason: 'TOOL_DENIED' } });
    const held = await client.callTool({ name: 'get-tiny-image', arguments: {} }).then(
      () => null,
      (err: unknown) => err,
    );
    t.match(held, { code: -32004, data: { reason: 'NO_TOOL_RULE_REQUIRE_APPROVAL' } });

    // A bare call has no session of its own: the gateway's one-off session declares no capabilities,
    // so the server does not offer it a tool that would ask back a question nobody could answer.
    const bare = await px.callTool(s.id, 'trigger-sampling-request', { prompt: 'x', maxTokens: 5 });
    t.match(
      bare.body.result,
      { isError: true, content: [{ text: /Tool trigger-sampling-request not found/ }] },
      'answered at once, not left waiting for a sampling answer',
    );

    const traces = await callTraces(px.gw);
    t.same(
      traces.map((x) => [x.decision, x.body.tool, x.body.mode]),
      [
        ['PASSED', 'echo', 'session'],
        ['PASSED', 'trigger-long-running-operation', 'session'],
        ['PASSED', 'trigger-sampling-request', 'session'],
        ['PASSED', 'trigger-elicitation-request', 'session'],
        ['PASSED', 'get-roots-list', 'session'],
        ['PASSED', 'toggle-simulated-logging', 'session'],
        ['PASSED', 'toggle-simulated-logging', 'session'],
        ['BLOCKED', 'get-env', 'session'],
        ['PENDING_APPROVAL', 'get-tiny-image', 'session'],
        ['PASSED', 'trigger-sampling-request', 'gateway'],
      ],
      'one decision per tools/call; nothing else is a decision',
    );

    await transport.terminateSession();
    t.equal(transport.sessionId, undefined, 'DELETE through the proxy ended the session');
    t.equal((await px.gw.db`select count(*)::int as n from mcp_proxy_sessions`)[0]!.n, 0, 'and its binding');
  },
);

t.test('a DENY rule: the SDK 1.x client gets an McpError with the gateway code, the server never sees the call', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'ALLOW', progress: 'ALLOW' });
  const { client } = await legacyClient(t, proxyUrl(px, s.id), px.gw.adminToken);
  const denied = await client.callTool({ name: 'delete_file', arguments: { path: '/etc' } }).then(
    () => null,
    (err: unknown) => err,
  );
  t.ok(denied instanceof McpError);
  t.match(denied, { code: -32003, data: { reason: 'TOOL_DENIED' } });
  t.type((denied as McpError & { data?: { trace_id?: unknown } }).data?.trace_id, 'string');
  t.equal(up.calls(), 0, 'the upstream never saw it');
  t.same(up.argumentsSeen, []);
  t.equal((await px.gw.db`select count(*)::int as n from approvals`)[0]!.n, 0, 'nothing written but its trace');
  t.same(
    (await callTraces(px.gw)).map((x) => x.decision),
    ['BLOCKED'],
  );
  t.same(texts(await client.callTool({ name: 'ping', arguments: { n: 1 } })), ['{"n":1}'], 'the session goes on');
  t.equal(up.calls(), 1);
});

t.test(
  '2.x client pinned to 2026-07-28 against a 2026-07-28 server: discover, list, call, progress, input_required, refusal',
  async (t) => {
    const px = await startProxyGateway(t);
    const up = await startModernMcpServer(t, { legacy: 'reject', response: 'sse', interactive: true });
    const s = await activeServer(px, up.url, { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'ALLOW', progress: 'ALLOW', ask: 'ALLOW' });
    const client = await modernClient(t, proxyUrl(px, s.id), 'pin', px.gw.adminToken);
    t.equal(client.getProtocolEra(), 'modern');
    t.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    t.same(
      (await client.listTools()).tools.map((x) => x.name).sort(),
      ['ask', 'delete_file', 'get_weather', 'ping', 'progress'],
      'every admitted tool is listed, the DENY one too',
    );
    t.same(texts(await client.callTool({ name: 'ping', arguments: { a: 'b' } })), ['{"a":"b"}']);
    const events: string[] = [];
    await client
      .callTool(
        { name: 'progress', arguments: {} },
        {
          onprogress: (p) => {
            events.push(`progress ${p.progress}`);
          },
        },
      )
      .then(() => events.push('result'));
    t.same(events, ['progress 1', 'progress 2', 'progress 3', 'result'], 'progress streamed through, in order, before the result');
    const asked = await client.callTool({ name: 'ask', arguments: {} });
    t.same(
      texts(asked),
      ['{"action":"accept","content":{"ok":true}}'],
      'input_required fulfilled by the client and retried through the proxy',
    );
    const denied = await client.callTool({ name: 'delete_file', arguments: {} }).then(
      () => null,
      (err: unknown) => err,
    );
    t.match(denied, { code: -32003, data: { reason: 'TOOL_DENIED' } });

    const calls = up.seen.filter((x) => x.rpcMethod === 'tools/call');
    t.equal(calls.length, 4, 'ping, progress and both rounds of ask reached the server; the denied call did not');
    for (const call of calls) {
      const name = (call.body as { params: { name: string } }).params.name;
      t.equal(call.headers['mcp-protocol-version'], '2026-07-28');
      t.equal(call.headers['mcp-method'], 'tools/call', `${name}: the client's Mcp-Method passed the header check and went on`);
      t.equal(call.headers['mcp-name'], name, `${name}: so did its Mcp-Name`);
    }
    t.ok(
      up.seen.some((x) => x.rpcMethod === 'server/discover' && x.headers['mcp-method'] === 'server/discover'),
      'discover went through',
    );
    const traces = await callTraces(px.gw);
    t.same(
      traces.map((x) => [x.decision, x.body.tool, x.body.mode]),
      [
        ['PASSED', 'ping', 'session'],
        ['PASSED', 'progress', 'session'],
        ['PASSED', 'ask', 'session'],
        ['PASSED', 'ask', 'session'],
        ['BLOCKED', 'delete_file', 'session'],
      ],
      'each round of a multi-round call is a decision of its own',
    );
  },
);

t.test('2.x client in auto mode against server-everything: falls back to the 2025 era, works through the proxy', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startEverythingServer(t);
  const s = await activeServer(px, up.url, EVERYTHING_RULES);
  const client = await modernClient(t, proxyUrl(px, s.id), 'auto', px.gw.adminToken);
  t.equal(client.getProtocolEra(), 'legacy', 'server-everything speaks the 2025 era');
  t.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
  const names = (await client.listTools()).tools.map((x) => x.name);
  t.ok(names.includes('echo') && names.includes('get-env'), 'the DENY tool is listed: tools/list is not a rule decision');
  t.same(texts(await client.callTool({ name: 'echo', arguments: { message: 'two' } })), ['Echo: two']);
  const events: number[] = [];
  await client.callTool(
    { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 3 } },
    {
      onprogress: (p) => {
        events.push(p.progress);
      },
    },
  );
  t.same(events, [1, 2, 3], 'progress streamed through');
  t.match(
    texts(await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 } }))[0],
    /the sampled answer/,
  );
  const denied = await client.callTool({ name: 'get-env', arguments: {} }).then(
    () => null,
    (err: unknown) => err,
  );
  t.match(denied, { code: -32003, data: { reason: 'TOOL_DENIED' } });
});

t.test('transparency: the same client script directly and through the proxy gives the same results', async (t) => {
  const px = await startProxyGateway(t);
  const everything = await startEverythingServer(t);
  const s = await activeServer(px, everything.url, EVERYTHING_RULES);
  const direct = (await legacyClient(t, everything.url)).client;
  const proxied = (await legacyClient(t, proxyUrl(px, s.id), px.gw.adminToken)).client;
  t.same(await everythingScript(proxied), await everythingScript(direct), 'SDK 1.x client, server-everything');
  const all = (await direct.listTools()).tools;
  t.same((await proxied.listTools()).tools, all, 'tools/list: the same entries, the DENY tool among them');
  for (const method of ['GET', 'DELETE']) {
    t.same(
      await raw(proxyUrl(px, s.id), method, px.gw.adminToken),
      await raw(everything.url, method),
      `${method} without a session: the upstream's answer`,
    );
  }

  const modern = await startModernMcpServer(t, { legacy: 'reject', response: 'sse', interactive: true });
  const m = await activeServer(px, modern.url, {
    get_weather: 'ALLOW',
    delete_file: 'ALLOW',
    ping: 'ALLOW',
    progress: 'ALLOW',
    ask: 'ALLOW',
  });
  const script = async (client: ModernClient) => {
    const progress: number[] = [];
    return {
      era: client.getProtocolEra(),
      version: client.getNegotiatedProtocolVersion(),
      tools: (await client.listTools()).tools,
      weather: await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } }),
      counted: await client.callTool(
        { name: 'progress', arguments: {} },
        {
          onprogress: (p) => {
            progress.push(p.progress);
          },
        },
      ),
      asked: await client.callTool({ name: 'ask', arguments: {} }),
      progress,
    };
  };
  t.same(
    await script(await modernClient(t, proxyUrl(px, m.id), 'pin', px.gw.adminToken)),
    await script(await modernClient(t, modern.url, 'pin')),
    '2.x client, 2026-07-28 server',
  );
  t.same(
    await raw(proxyUrl(px, m.id), 'GET', px.gw.adminToken),
    await raw(modern.url, 'GET'),
    'GET on a 2026-07-28 server: its answer, as it gave it',
  );
});
