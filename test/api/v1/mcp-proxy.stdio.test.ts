// Calls to stdio servers through the proxy (issue 28), end to end with the official SDK client
// over Streamable HTTP against the gateway: server-everything in stdio mode in the sandbox
// (initialize answered by the gateway, tools/list, tools/call of echo with its decision trace and
// outcome), and a hostile stdio program (test/helpers/hostile-stdio-server.ts): a DENY rule refuses
// without reaching the process, an injection in a result is withheld, a program that exits
// mid-call gives a bounded -32007 and leaves no process, one that never answers -32007 at the call
// deadline, one that writes non-JSON -32006, a held call approved (and in wait mode) then forwarded,
// and a targeted stop ends the process. gatewayctl bridge works unchanged: a host sees the proxy URL.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { CLI_BIN } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { callTraces } from '../../helpers/mcp-proxy.js';
import { activeStdio, everything, hostile, processesOf, sdkClient, STDIO_ON, textOf } from '../../helpers/stdio-proxy.js';

async function outcomeOf(gw: TestGateway, traceId: string) {
  await eventually(async () => (await gw.db`select count(*)::int as n from mcp_call_outcomes where trace_id = ${traceId}`)[0]!.n > 0);
  const [row] = await gw.db<{ outcome: string; rpc_code: number | null }[]>`
    select outcome, rpc_code from mcp_call_outcomes where trace_id = ${traceId}`;
  return row!;
}

t.test(
  'server-everything over stdio through the proxy: initialize by the gateway, tools/list, echo with its trace and outcome',
  async (t) => {
    const gw = await startTestGateway(t, { env: STDIO_ON });
    const id = await activeStdio(t, gw, everything, {});
    const client = await sdkClient(t, gw, id);
    t.match(client.getServerVersion(), { name: String }, 'the initialize answer carries the server the gateway holds');
    const listed = await client.listTools();
    t.ok(
      listed.tools.some((x) => x.name === 'echo'),
      listed.tools.map((x) => x.name).join(', '),
    );
    const echoed = await client.callTool({ name: 'echo', arguments: { message: 'through the gateway' } });
    t.match(textOf(echoed), /through the gateway/);
    const traces = await callTraces(gw);
    const echo = traces.find((x) => x.body.tool === 'echo');
    t.ok(echo, 'an MCP_TOOL_CALL trace of the echo call');
    t.match(echo, { decision: 'PASSED', body: { outcome: 'forwarded', server_id: id } }, 'the decision, durable before the call went on');
    t.match(await outcomeOf(gw, echo!.id), { outcome: 'ok', rpc_code: null }, 'the outcome under the decision trace');
    const get = await fetch(`${gw.url}/api/v1/mcp/proxy/${id}`, {
      headers: { authorization: `Bearer ${gw.adminToken}`, accept: 'text/event-stream' },
    });
    t.equal(get.status, 405, 'no event stream of the caller: the gateway holds the session');
    t.equal(get.headers.get('allow'), 'POST');
  },
);

t.test(
  'a hostile stdio program: DENY never reaches it, an injected result is withheld, a crash mid-call is a bounded -32007',
  async (t) => {
    const gw = await startTestGateway(t, { env: STDIO_ON });
    const id = await activeStdio(t, gw, hostile('hostile'), { crash: 'DENY' });
    const client = await sdkClient(t, gw, id);
    t.equal(textOf(await client.callTool({ name: 'hello', arguments: {} })), 'hello from stdio');
    const before = await processesOf(gw, id);
    t.ok(before.length > 0, 'running');
    const denied = await client.callTool({ name: 'crash', arguments: {} }).then(
      () => null,
      (err: unknown) => err,
    );
    t.ok(denied instanceof McpError, 'refused as a JSON-RPC error');
    t.equal((denied as McpError).code, -32003, 'TOOL_DENIED');
    t.same(await processesOf(gw, id), before, 'the crash tool never reached the process: it still runs');
    t.match(
      (await callTraces(gw)).map((x) => [x.decision, x.body.tool]),
      [
        ['PASSED', 'hello'],
        ['BLOCKED', 'crash'],
      ],
    );

    const injected = await client.callTool({ name: 'inject', arguments: {} });
    t.equal(injected.isError, true);
    t.match(textOf(injected), /^The gateway withheld this result: a content policy found PROMPT_INJECTION/);
    t.notMatch(textOf(injected), /ssh|attacker/, 'nothing of the original');

    const crashing = await activeStdio(t, gw, hostile('crashing'), {});
    const other = await sdkClient(t, gw, crashing);
    t.equal(textOf(await other.callTool({ name: 'hello', arguments: {} })), 'hello from stdio');
    const crashed = await other.callTool({ name: 'crash', arguments: {} }).then(
      () => null,
      (err: unknown) => err,
    );
    t.ok(crashed instanceof McpError, 'a JSON-RPC error, not a hang');
    t.equal((crashed as McpError).code, -32007);
    t.match((crashed as McpError).data, { detail: 'the stdio server exited with code 3', trace_id: String });
    t.ok(await eventually(async () => (await processesOf(gw, crashing)).length === 0), 'no process of it is left');
    t.match(await outcomeOf(gw, (crashed as McpError & { data: { trace_id: string } }).data.trace_id), {
      outcome: 'unreachable',
      rpc_code: -32007,
    });
    t.ok((await processesOf(gw, id)).length > 0, 'the other server runs on');
  },
);

t.test('a stdio program that never answers gives -32007 at the call deadline; one that breaks the protocol gives -32006', async (t) => {
  const gw = await startTestGateway(t, { env: { ...STDIO_ON, GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS: '5' } });
  const id = await activeStdio(t, gw, hostile('hostile'), {});
  const client = await sdkClient(t, gw, id);
  const failure = (name: string) =>
    client.callTool({ name, arguments: {} }, undefined, { timeout: 120_000 }).then(
      () => null,
      (err: unknown) => err as McpError & { data: { detail: string; trace_id: string } },
    );
  const hung = await failure('hang');
  t.ok(hung instanceof McpError, 'a JSON-RPC error at the deadline');
  t.equal(hung!.code, -32007);
  t.equal(hung!.data.detail, 'the stdio server did not answer tools/call within 5000 ms');
  t.match(await outcomeOf(gw, hung!.data.trace_id), { outcome: 'timeout', rpc_code: -32007 });
  const garbled = await failure('garble');
  t.ok(garbled instanceof McpError);
  t.equal(garbled!.code, -32006);
  t.match(garbled!.data.detail, /broke the protocol: the server wrote a line on stdout that is not JSON/);
  t.match(await outcomeOf(gw, garbled!.data.trace_id), { outcome: 'invalid_response', rpc_code: -32006 });
  t.ok(await eventually(async () => (await processesOf(gw, id)).length === 0), 'the process that broke the protocol is gone');
});

t.test('a held call to a stdio server: approved by a person, then forwarded once', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('hostile'), { hello: 'REQUIRE_APPROVAL' });
  const alice = await gw.key('admin', 'alice');
  const client = await sdkClient(t, gw, id);
  const attempt = () =>
    client.callTool({ name: 'hello', arguments: {} }).then(
      () => null,
      (err: unknown) => err as McpError & { data: { approval_id: string; reason: string } },
    );
  const held = await attempt();
  t.ok(held instanceof McpError);
  t.match(held, { code: -32004, data: { reason: 'TOOL_REQUIRES_APPROVAL', approval_id: String } });
  const approvalId = held!.data.approval_id;
  const decided = await gw.api('POST', `/api/v1/mcp/approvals/${approvalId}/decide`, { token: alice, body: { approved: true } });
  t.equal(decided.status, 200, decided.status === 200 ? 'approved' : decided.text);
  const forwarded = await client.callTool({ name: 'hello', arguments: { _gateway_approval_id: approvalId } });
  t.equal(textOf(forwarded), 'hello from stdio', 'the approved call reaches the process');
  const spent = await attempt();
  t.match(spent, { code: -32004 }, 'the next one is held again');
  t.same(
    (await callTraces(gw)).map((x) => x.decision),
    ['PENDING_APPROVAL', 'PASSED', 'PENDING_APPROVAL'],
  );
});

t.test('wait mode to a stdio server: the call waits for the decision, then reaches the process', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('hostile'), { hello: 'REQUIRE_APPROVAL' });
  const alice = await gw.key('admin', 'alice');
  const client = await sdkClient(t, gw, id, { 'x-gateway-approval-wait': '120' });
  const call = client.callTool({ name: 'hello', arguments: {} }, undefined, { timeout: 180_000 });
  let approvalId: string | undefined;
  t.ok(
    await eventually(async () => {
      const open = (await gw.api('GET', '/api/v1/mcp/approvals')).body.approvals as { id: string }[];
      approvalId = open[0]?.id;
      return approvalId !== undefined;
    }),
    'the held call opened an approval request',
  );
  const decided = await gw.api('POST', `/api/v1/mcp/approvals/${approvalId}/decide`, { token: alice, body: { approved: true } });
  t.equal(decided.status, 200, decided.status === 200 ? 'approved' : decided.text);
  t.equal(textOf(await call), 'hello from stdio', 'the waiting call is answered by the process');
});

t.test('the targeted stop of a stdio server ends its process; the next call is refused', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('hostile'), {});
  const client = await sdkClient(t, gw, id);
  t.equal(textOf(await client.callTool({ name: 'hello', arguments: {} })), 'hello from stdio');
  const stop = await gw.api('POST', '/api/v1/mcp/emergency-stop', { body: { scope: 'server', target_id: id, reason: 'drill' } });
  t.equal(stop.status, 200, stop.status === 200 ? 'stopped' : stop.text);
  t.same(await processesOf(gw, id), [], 'no process when the stop answers');
  const refused = await client.callTool({ name: 'hello', arguments: {} }).then(
    () => null,
    (err: unknown) => err,
  );
  t.ok(refused instanceof McpError, 'refused after the stop');
  t.same(await processesOf(gw, id), [], 'and not started again');
});

t.test('gatewayctl bridge to a stdio server: list and call, as for an HTTP one', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('hostile'), {});
  const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-stdio-bridge-'));
  t.teardown(() => fs.rm(home, { recursive: true, force: true }));
  const tokenFile = path.join(home, 'bridge.token');
  await fs.writeFile(tokenFile, `${await gw.key('viewer')}\n`, { mode: 0o600 });
  const client = new Client({ name: 'stdio-bridge', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI_BIN, 'bridge', id],
      env: {
        PATH: process.env.PATH ?? '',
        HOME: home,
        GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
        GATEWAY_URL: gw.url,
        GATEWAY_TOKEN_FILE: tokenFile,
      },
      stderr: 'pipe',
      cwd: home,
    }),
  );
  t.teardown(() => client.close());
  t.match(client.getServerVersion(), { name: 'hostile-stdio' });
  t.ok((await client.listTools()).tools.some((x) => x.name === 'hello'));
  t.equal(textOf(await client.callTool({ name: 'hello', arguments: {} })), 'hello from stdio');
});
