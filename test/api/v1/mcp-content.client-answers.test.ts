// A client's answer to a server's own request (here sampling's model output) leaves the client for
// the upstream, so the argument policies inspect it like a request's params
// (daemon/mcp/proxy/client-answer.ts): a cloud key in the model's answer is blocked by default (the
// server gets -32003 in the client's place, never the key; the client's POST gets 403), masked under
// a REDACT policy, and a harmless answer passes unchanged with no trace. The answer is read as data
// (a model's output), not as the caller's prompt. Real SDK client and server.
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../../helpers/eventually.js';
import { CLOUD_KEY, type HostileServer, startHostileContentServer } from '../../helpers/hostile-content-server.js';
import { activeServer, startProxyGateway, type ProxyGateway } from '../../helpers/mcp-proxy.js';

interface Setup {
  px: ProxyGateway;
  up: HostileServer;
  client: Client;
  transport: StreamableHTTPClientTransport;
  url: URL;
  /** What the client's transport reported (a refused POST of its answer). */
  errors: string[];
}

async function setUp(t: Test, answer: string): Promise<Setup> {
  // A loaded machine once ran the detectors past the default budget (a refusal, fail closed): not what is tested here.
  const px = await startProxyGateway(t, { GATEWAY_DETECTOR_BUDGET_MS: '600000', GATEWAY_INSPECTION_BUDGET_MS: '600000' });
  const up = await startHostileContentServer(t);
  const s = await activeServer(px, up.url, { ask_model: 'ALLOW' });
  const client = new Client({ name: 'answers-test', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, () => ({ model: 'm', role: 'assistant', content: { type: 'text', text: answer } }));
  const errors: string[] = [];
  client.onerror = (err) => errors.push(err.message);
  const url = new URL(`${px.url}/api/v1/mcp/proxy/${s.id}`);
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers: { authorization: `Bearer ${px.gw.adminToken}` } } });
  await client.connect(transport);
  t.teardown(() => client.close());
  return { px, up, client, transport, url, errors };
}

const textOf = (result: unknown) => (result as { content: { text?: string }[] }).content.map((c) => c.text ?? '').join('\n');

// biome-ignore lint/suspicious/noExplicitAny: the stored trace content, read by path in tests
type ContentTrace = { decision: string; reason: string; body: Record<string, any> };
async function contentTraces(x: Setup): Promise<ContentTrace[]> {
  return x.px.gw.db<ContentTrace[]>`
    select t.decision, t.reason, c.body from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_CONTENT' order by t.sequence_num`;
}

const LEAKY = `Run it in eu-west-1 with aws_access_key_id ${CLOUD_KEY}.`;

t.test("a cloud key in the client's answer is blocked by default: the server gets -32003 instead, never the key", async (t) => {
  const x = await setUp(t, LEAKY);
  const result = await x.client.callTool({ name: 'ask_model', arguments: {} });
  t.match(
    textOf(result),
    /sampling failed: .*-32003.*answer was withheld by the gateway/,
    'the server got the refusal in the client’s place',
  );
  t.notMatch(JSON.stringify(x.up.samplingAnswers), CLOUD_KEY, 'the key never reached the server');
  await eventually(async () => x.errors.length > 0);
  t.match(
    x.errors[0],
    /POSTing to endpoint: .*"id":null.*CONTENT_BLOCKED.*result\.content\.text/,
    "the client's POST of its answer was refused, with the reason",
  );
  const traces = await contentTraces(x);
  t.equal(traces.length, 1, 'one content trace');
  t.equal(traces[0]!.decision, 'BLOCKED');
  t.match(traces[0]!.reason, /client's answer to a server request: blocked/);
  t.equal(traces[0]!.body.method, 'response');
  t.match(traces[0]!.body.content_findings.arguments, [{ path: 'result.content.text', effect: 'BLOCK' }]);
  t.notMatch(JSON.stringify(traces), CLOUD_KEY, 'no raw value in the trace');

  const raw = await fetch(x.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${x.px.gw.adminToken}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-session-id': x.transport.sessionId!,
      'mcp-protocol-version': x.transport.protocolVersion!,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 'late', result: { content: [{ type: 'text', text: LEAKY }] } }),
  });
  t.equal(raw.status, 403, 'a refused answer is an HTTP error, as Streamable HTTP asks');
  t.match(await raw.json(), { id: null, error: { code: -32003, message: /^The answer was refused: .*The server did not receive it\.$/ } });
});

t.test('under a REDACT argument policy the server gets the answer with the key masked', async (t) => {
  const x = await setUp(t, LEAKY);
  const res = await x.px.gw.api('POST', '/api/v1/mcp/content-policies', {
    body: { direction: 'arguments', detector: 'secrets', action: 'REDACT' },
  });
  t.equal(res.status, 201, res.text);
  await x.px.gw.settled();
  const result = await x.client.callTool({ name: 'ask_model', arguments: {} });
  t.equal(textOf(result), 'summarised');
  t.match(x.up.samplingAnswers, [{ content: { text: 'Run it in eu-west-1 with aws_access_key_id [AWS_ACCESS_KEY_1].' } }]);
  const traces = await contentTraces(x);
  t.equal(traces.length, 1);
  t.equal(traces[0]!.decision, 'MODIFIED');
  t.same(x.errors, [], 'the client saw no error');
});

t.test('a harmless answer reaches the server unchanged and writes no trace', async (t) => {
  const x = await setUp(t, 'The closest region to your users is eu-west-1.');
  const result = await x.client.callTool({ name: 'ask_model', arguments: {} });
  t.equal(textOf(result), 'summarised');
  t.match(x.up.samplingAnswers, [{ content: { text: 'The closest region to your users is eu-west-1.' } }]);
  t.same(await contentTraces(x), []);
  t.same(x.errors, []);
});
