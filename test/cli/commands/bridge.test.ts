// gatewayctl bridge end to end: the official SDK's stdio client spawns the compiled
// `gatewayctl bridge SERVER` (key from a 0600 file named in the environment, never in argv) and
// speaks to server-everything behind a real gateway through it: tools/list, a call, progress
// notifications, a sampling request answered by the client on the call's stream, a roots request on
// the GET stream, a held call's -32004 with its message text, and the DELETE that ends the session
// when the client closes. Then the raw wire: a JSON-RPC error the proxy answers under HTTP 400
// reaches the host unchanged, and stdout carries nothing but JSON-RPC.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CreateMessageRequestSchema, ListRootsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { CLI_BIN } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { startEverythingServer } from '../../helpers/mcp-servers.js';
import { activeAgent, activeServer, callTraces, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';

/** The tools the test calls are allowed; every other tool of server-everything is REQUIRE_APPROVAL. */
const RULES = {
  echo: 'ALLOW',
  'trigger-long-running-operation': 'ALLOW',
  'trigger-sampling-request': 'ALLOW',
  'get-roots-list': 'ALLOW',
};
const SAMPLED = { model: 'test-model', role: 'assistant' as const, content: { type: 'text' as const, text: 'the sampled answer' } };
const texts = (result: unknown) => (result as { content: { type: string; text?: string }[] }).content.map((c) => c.text ?? c.type);

const px = await startProxyGateway(t);
const { gw } = px;
const everything = await startEverythingServer(t);
const server = await activeServer(px, everything.url, RULES, { name: 'everything' });
const key = await gw.key('viewer');
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-bridge-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const tokenFile = path.join(home, 'bridge.token');
await fs.writeFile(tokenFile, `${key}\n`, { mode: 0o600 });
const bridgeEnv = (extra: Record<string, string> = {}): Record<string, string> => ({
  PATH: process.env.PATH ?? '',
  HOME: home,
  GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
  GATEWAY_URL: gw.url,
  GATEWAY_TOKEN_FILE: tokenFile,
  ...extra,
});
const sessions = async (): Promise<number> => (await gw.db`select count(*)::int as n from mcp_proxy_sessions`)[0]!.n as number;

t.test('SDK stdio client -> bridge -> gateway -> server-everything: list, call, progress, sampling, roots, held, DELETE', async (t) => {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'bridge', 'everything'],
    env: bridgeEnv(),
    stderr: 'pipe',
    cwd: home,
  });
  let stderr = '';
  transport.stderr?.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const client = new Client({ name: 'bridge-test', version: '1.0.0' }, { capabilities: { sampling: {}, roots: { listChanged: true } } });
  client.setRequestHandler(CreateMessageRequestSchema, () => SAMPLED);
  client.setRequestHandler(ListRootsRequestSchema, () => ({ roots: [{ uri: 'file:///srv/bridged', name: 'bridged' }] }));
  await client.connect(transport);
  t.teardown(() => client.close());
  t.notMatch(JSON.stringify(transport), new RegExp(key), 'the key is not in the command line');

  t.equal(client.getServerVersion()?.name, 'mcp-servers/everything', 'initialize went through');
  t.equal(await sessions(), 1, 'one proxy session, bound to the key');
  const names = (await client.listTools()).tools.map((x) => x.name);
  t.ok(names.includes('echo') && names.includes('get-tiny-image'), 'tools/list');

  t.same(texts(await client.callTool({ name: 'echo', arguments: { message: 'through the bridge' } })), ['Echo: through the bridge']);

  // What reaches the client's stdin, in order, beside what its Client hands on: the SDK Client runs
  // notification handlers a microtask later but answers at once, so a last progress notification
  // read in the same chunk as the call's answer never reaches onprogress (any stdio server alike).
  const wire: string[] = [];
  const deliver = transport.onmessage;
  transport.onmessage = (m) => {
    const msg = m as { method?: string; params?: { progress?: number; total?: number }; result?: unknown };
    if (msg.method === 'notifications/progress') wire.push(`progress ${msg.params?.progress}/${msg.params?.total}`);
    else if ('result' in msg && wire.length > 0) wire.push('result');
    deliver?.(m);
  };
  const events: string[] = [];
  const long = await client.callTool({ name: 'trigger-long-running-operation', arguments: { duration: 0.4, steps: 4 } }, undefined, {
    onprogress: (p) => {
      events.push(`progress ${p.progress}/${p.total}`);
    },
  });
  transport.onmessage = deliver;
  t.same(
    wire.slice(0, 5),
    ['progress 1/4', 'progress 2/4', 'progress 3/4', 'progress 4/4', 'result'],
    'every progress notification relayed, in order, before the result',
  );
  t.ok(events.length >= 3, `the client's onprogress saw them (${events.join(', ')})`);
  t.same(events, wire.slice(0, events.length), 'in order');
  t.match(texts(long)[0], /completed/);

  const sampled = await client.callTool({ name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } });
  t.match(texts(sampled)[0], /the sampled answer/, "the server's sampling request reached the client, its answer the server");

  const rooted = await client.callTool({ name: 'get-roots-list', arguments: {} });
  t.match(texts(rooted).join('\n'), /file:\/\/\/srv\/bridged/, 'a request on the GET stream, answered back through the bridge');

  const held = await client.callTool({ name: 'get-tiny-image', arguments: {} }).then(
    () => null,
    (err: unknown) => err,
  );
  t.ok(held instanceof McpError, 'a held call is an McpError');
  t.match(held, { code: -32004, data: { reason: 'TOOL_REQUIRES_APPROVAL', approval_id: String, trace_id: String } });
  const approvalId = (held as McpError & { data: { approval_id: string } }).data.approval_id;
  t.match(
    (held as Error).message,
    new RegExp(
      `The call to tool "get-tiny-image" on server "everything" is held for approval: request ${approvalId}, expires \\S+\\. `
        + `An Admin decides with: gatewayctl approvals decide ${approvalId} --approve`,
    ),
    "the proxy's explanatory message, unchanged",
  );

  t.same(
    (await callTraces(gw)).map((x) => [x.decision, x.body.tool, x.body.mode]),
    [
      ['PASSED', 'echo', 'session'],
      ['PASSED', 'trigger-long-running-operation', 'session'],
      ['PASSED', 'trigger-sampling-request', 'session'],
      ['PASSED', 'get-roots-list', 'session'],
      ['PENDING_APPROVAL', 'get-tiny-image', 'session'],
    ],
    "every call governed, in the bridge's one session",
  );

  await client.close();
  t.ok(await eventually(async () => (await sessions()) === 0), 'closing stdin ended the session (DELETE through the proxy)');
  t.match(stderr, /^bridge: relaying stdio to \S+\/api\/v1\/mcp\/proxy\/\S+ \(server "everything"\)$/m, 'diagnostics on stderr');
  t.notMatch(stderr, new RegExp(key), 'the key is never logged');
});

interface RawRun {
  code: number | null;
  lines: unknown[];
  stdout: string;
  stderr: string;
}

/** The bridge on raw stdio: each message written once the previous answer (if any) arrived. */
function rawBridge(
  args: string[],
  env: Record<string, string>,
  messages: { msg: unknown; answer: boolean; before?: () => Promise<void> }[],
): Promise<RawRun> {
  const child = spawn(process.execPath, [CLI_BIN, 'bridge', ...args], { cwd: home, env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.on('error', () => undefined); // a bridge that refused to start has closed its stdin
  let stdout = '';
  let stderr = '';
  const lines: unknown[] = [];
  let waiting: (() => void) | null = null;
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
    const parts = stdout.split('\n');
    for (const line of parts.slice(lines.length, -1)) lines.push(JSON.parse(line));
    waiting?.();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return (async () => {
    for (const { msg, answer, before } of messages) {
      await before?.();
      const expected = lines.length + 1;
      child.stdin.write(`${JSON.stringify(msg)}\n`);
      if (!answer) continue;
      await Promise.race([
        new Promise<void>((resolve) => {
          waiting = () => {
            if (lines.length >= expected) resolve();
          };
          waiting();
        }),
        exited,
      ]);
    }
    child.stdin.end();
    const code = await exited;
    return { code, lines, stdout, stderr };
  })();
}

const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

t.test('raw stdio: a JSON-RPC error the proxy answers under HTTP 400 reaches the host unchanged; stdout is JSON-RPC only', async (t) => {
  const run = await rawBridge(['everything'], bridgeEnv(), [
    { msg: INIT, answer: true },
    { msg: { jsonrpc: '2.0', method: 'notifications/initialized' }, answer: false },
    { msg: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } }, answer: true },
  ]);
  t.equal(run.code, 0, run.stderr);
  t.match(run.lines[0], {
    jsonrpc: '2.0',
    id: 0,
    result: { protocolVersion: '2025-06-18', serverInfo: { name: 'mcp-servers/everything' } },
  });
  const direct = await px.rpc(server.id, { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { arguments: {} } });
  t.equal(direct.status, 400, 'the proxy answers this under 400');
  t.same(
    run.lines.find((l) => (l as { id?: unknown }).id === 7),
    direct.body,
    'the host got the same JSON-RPC error, unchanged',
  );
  t.ok(
    run.lines.every((l) => (l as { jsonrpc?: unknown }).jsonrpc === '2.0'),
    'every stdout line is a JSON-RPC message',
  );
  t.equal(run.stdout, run.lines.map((l) => `${JSON.stringify(l)}\n`).join(''), 'and stdout is nothing but those lines');
});

t.test('the negotiated protocol version goes on every later request; GATEWAY_AGENT_ID calls as that agent', async (t) => {
  const counting = await startCountingServer(t);
  const target = await activeServer(px, counting.url, { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'ALLOW', progress: 'ALLOW' });
  const agent = await activeAgent(gw);
  const from = counting.seen.length;
  const run = await rawBridge([target.id], bridgeEnv({ GATEWAY_AGENT_ID: agent }), [
    { msg: INIT, answer: true },
    { msg: { jsonrpc: '2.0', method: 'notifications/initialized' }, answer: false },
    { msg: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, answer: true },
    { msg: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'ping', arguments: { via: 'bridge' } } }, answer: true },
  ]);
  t.equal(run.code, 0, run.stderr);
  t.match(
    run.lines.find((l) => (l as { id?: unknown }).id === 2),
    { result: { content: [{ text: '{"via":"bridge"}' }] } },
  );
  const upstream = counting.seen.slice(from).filter((x) => x.rpcMethod !== undefined && x.rpcMethod !== 'initialize');
  t.same([...new Set(upstream.map((x) => x.rpcMethod))].sort(), ['notifications/initialized', 'tools/call', 'tools/list']);
  t.ok(
    upstream.every((x) => x.headers['mcp-protocol-version'] === '2025-06-18'),
    'MCP-Protocol-Version: the version the initialize answer named, on every request after it',
  );
  t.equal((await callTraces(gw)).at(-1)?.agent_id, agent, 'X-Agent-Id from GATEWAY_AGENT_ID');
});

t.test('a refusal without a JSON-RPC body (the key revoked mid-session: 401) answers the request with -32000', async (t) => {
  const created = await gw.api('POST', '/api/v1/keys', { body: { name: 'revoked later', role: 'viewer' } });
  const file = path.join(home, 'revoked.token');
  await fs.writeFile(file, created.body.key as string, { mode: 0o600 });
  const run = await rawBridge(['everything'], bridgeEnv({ GATEWAY_TOKEN_FILE: file }), [
    { msg: INIT, answer: true },
    { msg: { jsonrpc: '2.0', method: 'notifications/initialized' }, answer: false },
    {
      msg: { jsonrpc: '2.0', id: 9, method: 'tools/list' },
      answer: true,
      before: async () => {
        t.equal((await gw.api('DELETE', `/api/v1/keys/${created.body.id}`)).status, 200);
        await gw.settled();
      },
    },
  ]);
  t.equal(run.code, 0, run.stderr);
  t.match(
    run.lines.find((l) => (l as { id?: unknown }).id === 9),
    {
      jsonrpc: '2.0',
      id: 9,
      error: {
        code: -32000,
        message: /^The gateway answered HTTP 401 \(unauthorized\): /,
        data: { http_status: 401, code: 'unauthorized', request_id: String },
      },
    },
    'the host is answered, not left waiting',
  );
});

t.test('key from GATEWAY_TOKEN works; a bad key or an unknown server: exit 1, a line on stderr, nothing on stdout', async (t) => {
  const viaEnv = await rawBridge([server.id], bridgeEnv({ GATEWAY_TOKEN_FILE: '', GATEWAY_TOKEN: key }), [{ msg: INIT, answer: true }]);
  t.equal(viaEnv.code, 0, viaEnv.stderr);
  t.match(viaEnv.lines[0], { id: 0, result: { serverInfo: { name: 'mcp-servers/everything' } } }, 'SERVER by id, key from GATEWAY_TOKEN');

  await fs.writeFile(path.join(home, 'bad.token'), 'gw_not_a_key\n', { mode: 0o600 });
  const bad = await rawBridge(['everything'], bridgeEnv({ GATEWAY_TOKEN_FILE: path.join(home, 'bad.token') }), [
    { msg: INIT, answer: true },
  ]);
  t.equal(bad.code, 1);
  t.equal(bad.stdout, '');
  t.match(bad.stderr, /^Error: unauthorized: /m);

  const unknown = await rawBridge(['nope'], bridgeEnv(), [{ msg: INIT, answer: true }]);
  t.equal(unknown.code, 1);
  t.equal(unknown.stdout, '');
  t.match(unknown.stderr, /^Error: not_found: No MCP server with id or name "nope"/m);

  const missing = await rawBridge(['everything'], bridgeEnv({ GATEWAY_TOKEN_FILE: path.join(home, 'absent.token') }), []);
  t.equal(missing.code, 2);
  t.match(missing.stderr, /GATEWAY_TOKEN_FILE: cannot read \S+absent\.token \(ENOENT\)/);
});
