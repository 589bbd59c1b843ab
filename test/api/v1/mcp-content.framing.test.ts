// A hostile server frames its answer so that the results inspection would
// not see it (a JSON batch, the id as a string, 202 or a stream closed at once and then the answer on
// the session's GET stream) or puts the injection in a JSON-RPC error (error.message, error.data).
// Through the official SDK clients (1.x and 2.x) and through `gatewayctl bridge`, each answer is
// inspected: the injection never reaches the client, and an MCP_CONTENT trace records it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { CLI_BIN } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import type { TestGateway } from '../../helpers/gateway.js';
import { INJECTED_ISSUE } from '../../helpers/hostile-content-server.js';
import { type Framing, type FramingServer, startFramingServer } from '../../helpers/hostile-framing-server.js';
import { activeServer, type ProxyGateway, startProxyGateway } from '../../helpers/mcp-proxy.js';

const RULES = { read_issue: 'ALLOW', get_weather: 'ALLOW' };
const CASES: readonly Framing[] = [
  'batch-json',
  'string-id-json',
  'string-id-sse',
  'accepted-then-get',
  'closed-then-get',
  'error-message',
  'error-data-sse',
];
const ATTACK = /attacker\.example|id_rsa|ignore your previous/;

interface Setup {
  px: ProxyGateway;
  up: FramingServer;
  serverId: string;
  url: URL;
}

async function setUp(t: Test): Promise<Setup> {
  const px = await startProxyGateway(t);
  const up = await startFramingServer(t);
  const s = await activeServer(px, up.url, RULES);
  return { px, up, serverId: s.id, url: new URL(`${px.url}/api/v1/mcp/proxy/${s.id}`) };
}

/** What the client got for a call: its result or its error, as text. */
async function outcome(call: () => Promise<unknown>): Promise<string> {
  return call().then(
    (r) => JSON.stringify(r),
    (e: unknown) => `error ${(e as Error).message} ${JSON.stringify((e as { data?: unknown }).data ?? null)}`,
  );
}

async function contentTraces(gw: TestGateway, count: number) {
  await eventually(async () => (await gw.db`select count(*)::int as n from traces where trace_type = 'MCP_CONTENT'`)[0]!.n >= count);
  // biome-ignore lint/suspicious/noExplicitAny: the stored trace content, read by path in tests
  return gw.db<{ decision: string; body: Record<string, any> }[]>`
    select t.decision, c.body from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_CONTENT' order by t.sequence_num`;
}

async function runCases(
  t: Test,
  x: Setup,
  callTool: () => Promise<unknown>,
  close: () => Promise<void>,
  cases: readonly Framing[] = CASES,
): Promise<void> {
  // A client opens its GET stream on its own time after connecting; an answer sent there before is lost.
  await eventually(async () => x.up.getStreams() > 0);
  for (const framing of cases) {
    x.up.set(framing);
    const got = await outcome(callTool);
    t.notMatch(got, ATTACK, `${framing}: the injection did not reach the client`);
    t.match(got, /withheld/, `${framing}: the gateway's answer instead (${got.slice(0, 160)})`);
  }
  x.up.set('normal');
  t.match(await outcome(callTool), /Sunny/, 'a clean answer passes');
  await close(); // the GET stream's trace is written when the stream ends
  // An answer on the POST's stream is traced with its call; those on the GET stream with the stream.
  const onGet = cases.filter((c) => c.endsWith('-then-get')).length;
  const expected = cases.length - onGet + (onGet > 0 ? 1 : 0);
  const traces = await contentTraces(x.px.gw, expected);
  t.equal(traces.length, expected, 'one MCP_CONTENT trace per attack on a POST stream, one for the GET stream');
  t.equal(traces.filter((r) => r.body.method === null).length, onGet > 0 ? 1 : 0, "the GET stream's");
  t.ok(
    traces.every((r) => r.decision === 'BLOCKED' && r.body.outcomes.includes('withheld')),
    'each withheld',
  );
  t.notMatch(JSON.stringify(traces), INJECTED_ISSUE.slice(-60), 'no trace holds the injected text');
}

t.test('SDK 1.x client: every framing of the answer is inspected, errors too', async (t) => {
  const x = await setUp(t);
  const client = new Client({ name: 'framing-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(x.url, { requestInit: { headers: { authorization: `Bearer ${x.px.gw.adminToken}` } } }),
  );
  await runCases(
    t,
    x,
    () => client.callTool({ name: 'read_issue', arguments: {} }),
    () => client.close(),
  );
});

t.test('SDK 2.x client: the same', async (t) => {
  const x = await setUp(t);
  const client = new ModernClient({ name: 'framing-test-2', version: '2.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(new ModernTransport(x.url, { requestInit: { headers: { authorization: `Bearer ${x.px.gw.adminToken}` } } }));
  await runCases(
    t,
    x,
    () => client.callTool({ name: 'read_issue', arguments: {} }),
    () => client.close(),
  );
});

t.test('gatewayctl bridge: the same, through stdio', async (t) => {
  const x = await setUp(t);
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-framing-'));
  t.teardown(() => fs.rm(home, { recursive: true, force: true }));
  const tokenFile = path.join(home, 'bridge.token');
  await fs.writeFile(tokenFile, `${await x.px.gw.key('viewer')}\n`, { mode: 0o600 });
  const client = new Client({ name: 'framing-bridge', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_BIN, 'bridge', x.serverId],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
        GATEWAY_URL: x.px.url,
        GATEWAY_TOKEN_FILE: tokenFile,
      },
      stderr: 'pipe',
      cwd: home,
    }),
  );
  await runCases(
    t,
    x,
    () => client.callTool({ name: 'read_issue', arguments: {} }),
    () => client.close(),
    ['batch-json', 'string-id-sse', 'accepted-then-get', 'error-message'],
  );
});
