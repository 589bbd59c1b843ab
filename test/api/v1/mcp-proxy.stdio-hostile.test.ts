// Hostile stdio programs through the proxy (issue 28), with the official SDK client, beyond those
// of mcp-proxy.stdio.test.ts: one that floods stdout (-32006 naming the flood, the daemon's memory
// bounded), one that forks children into sessions of their own (all gone after a targeted stop;
// after the daemon's end: sandbox.test.ts), one that allocates past its memory limit (-32007 naming
// its end). Each leaves no process behind. (The gateway runs in the test's process: its RSS is ours.)
import fs from 'node:fs/promises';
import t from 'tap';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestGateway } from '../../helpers/gateway.js';
import { activeStdio, hostile, processesOf, sdkClient, STDIO_ON, textOf } from '../../helpers/stdio-proxy.js';

const failureOf = (p: Promise<unknown>): Promise<McpError | null> =>
  p.then(
    () => null,
    (err: unknown) => (err instanceof McpError ? err : null),
  );

/** Processes running `sleep 86399` (the forking tool's children), found in /proc. */
async function forkedChildren(): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline === 'sleep\u000086399\u0000') pids.push(Number(entry));
  }
  return pids;
}

t.test('a program that floods stdout: -32006 naming the flood, no process left, the daemon’s memory bounded', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('flood'), {});
  const client = await sdkClient(t, gw, id);
  t.equal(textOf(await client.callTool({ name: 'hello', arguments: {} })), 'hello from stdio');
  const before = process.memoryUsage().rss;
  const flooded = await failureOf(client.callTool({ name: 'flood', arguments: {} }));
  t.ok(flooded, 'a JSON-RPC error, not a hang');
  t.equal(flooded!.code, -32006);
  t.match(flooded!.data, { detail: /broke the protocol: more than 10000 stdout lines in a second/, trace_id: String });
  t.ok(await eventually(async () => (await processesOf(gw, id)).length === 0), 'the flooding process is gone');
  const grown = process.memoryUsage().rss - before;
  t.ok(grown < 256 * 1024 * 1024, `the daemon grew by ${Math.round(grown / 1024 / 1024)} MiB, bounded`);
  t.equal(textOf(await client.callTool({ name: 'hello', arguments: {} })), 'hello from stdio', 'the next call starts it again');
});

t.test('a program that forks children of its own: all gone after a targeted stop', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('forking'), {});
  const client = await sdkClient(t, gw, id);
  const before = await forkedChildren();
  t.match(textOf(await client.callTool({ name: 'fork', arguments: {} })), /^\d+,\d+,\d+$/, 'three children started');
  t.ok(await eventually(async () => (await forkedChildren()).length >= before.length + 3), 'running, each in a session of its own');
  const stop = await gw.api('POST', '/api/v1/mcp/emergency-stop', { body: { scope: 'server', target_id: id, reason: 'drill' } });
  t.equal(stop.status, 200, stop.status === 200 ? 'stopped' : stop.text);
  t.same(await processesOf(gw, id), [], 'the server is gone when the stop answers');
  t.ok(
    await eventually(async () => (await forkedChildren()).every((pid) => before.includes(pid))),
    'and every child it forked (its PID namespace ended)',
  );
});

t.test('a program that allocates past its memory limit: -32007 naming its end, no process left', async (t) => {
  const gw = await startTestGateway(t, { env: STDIO_ON });
  const id = await activeStdio(t, gw, hostile('hoarding'), {});
  const client = await sdkClient(t, gw, id);
  const ended = await failureOf(client.callTool({ name: 'allocate', arguments: {} }));
  t.ok(ended, 'a JSON-RPC error, not a hang');
  t.equal(ended!.code, -32007);
  t.match(ended!.data, { detail: /^the stdio server (exited with code [1-9]\d*|was ended by SIG[A-Z]+)$/, trace_id: String });
  t.ok(await eventually(async () => (await processesOf(gw, id)).length === 0), 'no process of it is left');
});
