// A stdio server as an upstream: the real server-everything over stdio in the sandbox, and hostile
// programs that never answer, exit in the middle of a call or write what is not JSON-RPC.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { createLogger } from '../../../daemon/log.js';
import { maskSecrets } from '../../../daemon/mcp/stdio/stderr-mask.js';
import { STDIO_ERRORS, StdioUpstream } from '../../../daemon/mcp/stdio/stdio-upstream.js';
import { eventually } from '../../helpers/eventually.js';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
const LIMITS = { memoryBytes: 2 * 1024 ** 3, openFiles: 256, processes: 256, cpuSeconds: 120 };

async function upstream(
  t: Test,
  args: string[],
  over: { idleMs?: number; confined?: boolean; env?: Record<string, string> } = {},
): Promise<{ up: StdioUpstream; serverMessages: unknown[] }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-stdio-up-'));
  const serverMessages: unknown[] = [];
  const up = new StdioUpstream({
    spec: {
      command: '/usr/bin/node',
      args,
      cwd: null,
      env: over.env ?? {},
      network: false,
      grants: [{ path: path.join(ROOT, 'node_modules'), mode: 'ro' }],
      privateDir: dir,
      hidden: [],
      limits: LIMITS,
    },
    process: {
      confined: over.confined ?? true,
      maxLineBytes: 4 * 1024 * 1024,
      maxLinesPerSecond: 10_000,
      stderrTailBytes: 4096,
      stderrLogLinesPerSecond: 20,
      log: createLogger('silent'),
      mask: maskSecrets,
      stopGraceMs: 2000,
    },
    idleMs: over.idleMs ?? 60_000,
    backoffMs: 200,
    maxBackoffMs: 5000,
    clientInfo: { name: 'gateway-test', version: '1' },
    onServerMessage: (m) => serverMessages.push(m),
  });
  t.teardown(async () => {
    await up.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });
  return { up, serverMessages };
}

const textOf = (answer: unknown) =>
  ((answer as { result: { content: { text: string }[] } }).result.content ?? []).map((c) => c.text).join('');

t.test('server-everything over stdio: handshake once, tools listed and called, two callers at once', async (t) => {
  const { up } = await upstream(t, [EVERYTHING, 'stdio']);
  const init = await up.initialized(30_000);
  t.match(init, { protocolVersion: String, serverInfo: { name: String } });
  const list = await up.request('tools/list', {}, 30_000);
  t.ok('result' in list, JSON.stringify(list).slice(0, 200));
  const names = ((list as { result: { tools: { name: string }[] } }).result.tools ?? []).map((x) => x.name);
  t.ok(names.includes('echo'), names.join(', '));
  const [a, b] = await Promise.all([
    up.request('tools/call', { name: 'echo', arguments: { message: 'one' } }, 30_000),
    up.request('tools/call', { name: 'echo', arguments: { message: 'two' } }, 30_000),
  ]);
  t.match(textOf(a), /one/);
  t.match(textOf(b), /two/);
  t.same(up.state.failures, 0);
  t.ok(up.state.running);
});

t.test(
  "a server's request during a call that takes them goes to that call's caller; only that caller's answer reaches the process",
  async (t) => {
    const { up, serverMessages } = await upstream(t, [EVERYTHING, 'stdio']);
    await up.initialized(30_000);
    const asked: { id: string | number; method: string }[] = [];
    const call = up.request('tools/call', { name: 'trigger-sampling-request', arguments: { prompt: 'hello', maxTokens: 5 } }, 30_000, {
      answerer: 'caller-a',
      onServerRequest: (m) => asked.push(m),
    });
    await eventually(async () => asked.length === 1);
    t.equal(asked[0]!.method, 'sampling/createMessage', "the server's request, relayed to the call's caller");
    const requests = () => serverMessages.filter((m) => (m as { id?: unknown }).id !== undefined) as { id: number; method: string }[];
    t.same(requests(), [], 'not refused meanwhile');
    const result = { model: 'm', role: 'assistant', content: { type: 'text', text: 'sampled by caller a' } };
    t.notOk(up.answerRelayed(asked[0]!.id, { result }, 'caller-b'), "another caller's answer does not reach the process");
    t.ok(up.answerRelayed(asked[0]!.id, { result }, 'caller-a'), "the caller's answer goes to the process");
    t.notOk(up.answerRelayed(asked[0]!.id, { result }, 'caller-a'), 'answered once only');
    t.match(textOf(await call), /sampled by caller a/);

    const alone = up.request('tools/call', { name: 'trigger-sampling-request', arguments: { prompt: 'x', maxTokens: 5 } }, 30_000);
    await eventually(async () => requests().length === 1);
    t.match(requests(), [{ method: 'sampling/createMessage' }], 'a call that takes none: the request goes to onServerMessage');
    const refused = requests()[0]!;
    t.notOk(up.answerRelayed(refused.id, { result }, 'caller-a'), 'not relayed: no caller may answer it');
    up.answer(refused.id, { error: { code: -32601, message: 'refused in the test' } });
    t.match(JSON.stringify(await alone), /refused in the test/, 'the refusal reached the tool');
  },
);

t.test('a server that never answers: the call fails at its deadline, the process stays', async (t) => {
  const silent = `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
    const m = JSON.parse(l);
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'silent', version: '1' } } }) + '\\n');
  });`;
  const { up } = await upstream(t, ['-e', silent]);
  // The handshake first, on a deadline a loaded machine meets: the 500 ms are the call's alone.
  await up.initialized(30_000);
  const answer = await up.request('tools/call', { name: 'x' }, 500);
  t.match(answer, { error: { code: STDIO_ERRORS.timeout, message: /did not answer tools\/call within 500 ms/ } });
  t.ok(up.state.running, 'one slow call does not end the process');
});

t.test('a server that exits mid-call: the call fails with why, the next use starts it again after a backoff', async (t) => {
  const crashing = `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
    const m = JSON.parse(l);
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'crash', version: '1' } } }) + '\\n');
    if (m.method === 'tools/call') process.exit(3);
  });`;
  const { up } = await upstream(t, ['-e', crashing]);
  const first = await up.request('tools/call', { name: 'x' }, 10_000);
  t.match(first, { error: { code: STDIO_ERRORS.unavailable, message: 'the stdio server exited with code 3' } });
  t.match(up.state, { running: false, failures: 1, totalFailures: 1, lastEnd: 'the stdio server exited with code 3' });
  t.ok(up.state.nextStartAt > Date.now() - 50, 'a backoff is set');
  const second = await up.request('tools/call', { name: 'x' }, 10_000);
  t.match(second, { error: { code: STDIO_ERRORS.unavailable } });
  t.match(up.state, { failures: 1, totalFailures: 2 }, 'the handshake succeeded in between: consecutive failures start over');
});

t.test('stdout that is not JSON-RPC fails the pending call as a protocol error', async (t) => {
  const noisy = `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
    const m = JSON.parse(l);
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'noisy', version: '1' } } }) + '\\n');
    else process.stdout.write('Listening...\\n');
  });`;
  const { up } = await upstream(t, ['-e', noisy]);
  const answer = await up.request('tools/list', {}, 10_000);
  t.match(answer, { error: { code: STDIO_ERRORS.protocol, message: /broke the protocol: .*not JSON/ } });
  t.notOk(up.state.running);
});

t.test('a program that does not exist fails the call, it does not throw', async (t) => {
  const { up } = await upstream(t, ['/nonexistent/server.js']);
  const answer = await up.request('tools/list', {}, 10_000);
  t.match(answer, { error: { code: STDIO_ERRORS.unavailable, message: /initialize: the stdio server exited with code 1/ } });
});

t.test('an idle server is stopped, and started again on the next use', async (t) => {
  const { up } = await upstream(t, [EVERYTHING, 'stdio'], { idleMs: 300 });
  t.ok('result' in (await up.request('tools/list', {}, 30_000)));
  t.ok(await eventually(() => !up.state.running, 30_000), 'stopped when idle');
  t.same(up.state.failures, 0, 'an idle stop is not a failure');
  t.ok('result' in (await up.request('tools/list', {}, 30_000)), 'and back on the next call');
});

t.test(
  'unconfined (GATEWAY_STDIO_UNSAFE_NO_SANDBOX): no bubblewrap, yet only the given environment, the private directory as home and cwd',
  async (t) => {
    const reporter = `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
    const m = JSON.parse(l);
    const seen = JSON.stringify({ env: Object.keys(process.env).sort(), home: process.env.HOME, cwd: process.cwd(), ppidIsBwrap: require('node:fs').readFileSync('/proc/' + process.ppid + '/comm', 'utf8').trim() });
    if (m.method === 'initialize') process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: seen, version: '1' } } }) + '\\n');
  });`;
    const { up } = await upstream(t, ['-e', reporter], { confined: false, env: { GIVEN: 'yes' } });
    const init = await up.initialized(30_000);
    const seen = JSON.parse((init.serverInfo as { name: string }).name) as {
      env: string[];
      home: string;
      cwd: string;
      ppidIsBwrap: string;
    };
    // The test runner's spawn hook (tap's processinfo) adds its own variables to every child; no daemon does.
    const own = seen.env.filter((k) => k !== 'NODE_OPTIONS' && !k.startsWith('_TAPJS_'));
    t.same(own, ['GIVEN', 'HOME', 'PATH'], "none of the daemon's environment (DATABASE_URL and the rest)");
    t.match(seen.home, /gw-stdio-up-/);
    t.equal(seen.cwd, seen.home);
    t.not(seen.ppidIsBwrap, 'bwrap');
  },
);
