// A sandboxed stdio process and hostile programs: each ends with a clear reason and leaves nothing behind.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import t, { type Test } from 'tap';
import { createLogger } from '../../../daemon/log.js';
import { maskSecrets } from '../../../daemon/mcp/stdio/stderr-mask.js';
import { parseLine, StdioProcess, type StdioEnd } from '../../../daemon/mcp/stdio/stdio-process.js';
import { eventually } from '../../helpers/eventually.js';

const LIMITS = { memoryBytes: 2 * 1024 ** 3, openFiles: 256, processes: 256, cpuSeconds: 60 };

interface Run {
  proc: StdioProcess;
  messages: unknown[];
  ended: Promise<StdioEnd>;
  logLines: () => string[];
}

/** Starts `script` (JavaScript for node) confined, as a stdio MCP server would run. */
async function start(t: Test, script: string, over: { maxLineBytes?: number; maxLinesPerSecond?: number } = {}): Promise<Run> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-stdio-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write(c, _e, done) {
        lines.push(String(c));
        done();
      },
    }),
  );
  const messages: unknown[] = [];
  let resolveEnd!: (end: StdioEnd) => void;
  const ended = new Promise<StdioEnd>((resolve) => {
    resolveEnd = resolve;
  });
  const proc = new StdioProcess({
    spec: {
      command: '/usr/bin/node',
      args: ['-e', script],
      cwd: null,
      env: {},
      network: false,
      grants: [],
      privateDir: dir,
      hidden: [],
      limits: LIMITS,
    },
    maxLineBytes: over.maxLineBytes ?? 1024 * 1024,
    maxLinesPerSecond: over.maxLinesPerSecond ?? 10_000,
    stderrTailBytes: 4096,
    stderrLogLinesPerSecond: 20,
    log,
    mask: maskSecrets,
    stopGraceMs: 2000,
    onMessage: (m) => messages.push(m),
    onEnd: resolveEnd,
  });
  proc.start();
  t.teardown(() => proc.stop());
  return { proc, messages, ended, logLines: () => lines };
}

const ECHO = `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
  const m = JSON.parse(l); process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result: { echo: m.params } }) + '\\n');
});`;

t.test('lines are parsed one message each; anything else is named', async (t) => {
  t.same(parseLine('{"jsonrpc":"2.0","id":1,"result":{}}'), { ok: true, message: { jsonrpc: '2.0', id: 1, result: {} } });
  t.same(parseLine('[{"jsonrpc":"2.0","id":1,"result":{}}]').ok, true, 'a batch is handed on as sent (the proxy decides)');
  t.match(parseLine('hello'), { ok: false, detail: /not JSON/ });
  t.match(parseLine('42'), { ok: false, detail: /not a JSON-RPC message/ });
});

t.test('a request and its answer travel as lines, split across chunks', async (t) => {
  const run = await start(t, ECHO);
  t.ok(run.proc.send({ jsonrpc: '2.0', id: 7, method: 'x', params: { a: 'x'.repeat(200_000) } }));
  t.ok(await eventually(() => run.messages.length === 1, 30_000));
  t.match(run.messages[0], { id: 7, result: { echo: { a: String } } });
  await run.proc.stop();
  t.match(await run.ended, { kind: 'exited' });
  t.notOk(run.proc.send({ id: 8 }), 'nothing is sent to a process that is gone');
});

t.test('stdout that is not JSON-RPC is a protocol error, and the process is ended', async (t) => {
  const run = await start(t, `process.stdout.write('Server ready on stdio\\n'); setInterval(() => {}, 1000);`);
  t.match(await run.ended, { kind: 'protocol', detail: /not JSON/ });
  t.ok(await eventually(() => run.proc.pid === null || !alive(run.proc.pid), 30_000), 'the process is gone');
});

t.test('a line past the size limit and a flood of lines are protocol errors', async (t) => {
  const long = await start(t, `process.stdout.write('{"a":"' + 'x'.repeat(300000)); setInterval(() => {}, 1000);`, {
    maxLineBytes: 100_000,
  });
  t.match(await long.ended, { kind: 'protocol', detail: /longer than 100000 bytes/ });
  const flood = await start(
    t,
    `const l = '{"jsonrpc":"2.0","method":"notifications/message"}\\n'.repeat(1000); const go = () => process.stdout.write(l, go); go();`,
    {
      maxLinesPerSecond: 5000,
    },
  );
  t.match(await flood.ended, { kind: 'protocol', detail: /more than 5000 stdout lines in a second/ });
});

t.test('a server that exits in the middle of a call ends with its exit code', async (t) => {
  const run = await start(t, `process.stdin.once('data', () => process.exit(3));`);
  run.proc.send({ jsonrpc: '2.0', id: 1, method: 'tools/call' });
  t.match(await run.ended, { kind: 'exited', code: 3 });
});

t.test('stop ends the server and every process it forked', async (t) => {
  const marker = String(800_000 + Math.floor(Math.random() * 99_999));
  const run = await start(
    t,
    `const { spawn } = require('node:child_process'); for (let i = 0; i < 3; i += 1) spawn('sleep', ['${marker}'], { detached: true, stdio: 'ignore' }); setInterval(() => {}, 1000);`,
  );
  const sleepers = async () => {
    let n = 0;
    for (const pid of await fs.readdir('/proc')) {
      if (/^\d+$/.test(pid) && (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')) === `sleep\0${marker}\0`) n += 1;
    }
    return n;
  };
  t.ok(await eventually(async () => (await sleepers()) === 3, 30_000), 'three children run, in their own sessions');
  await run.proc.stop();
  t.ok(await eventually(async () => (await sleepers()) === 0, 30_000), 'none is left');
});

t.test('stderr reaches the log masked and bounded; the tail is kept', async (t) => {
  const token = `ghp_${'aB3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1dE3fG5'.slice(0, 36)}`;
  const started = Date.now();
  const run = await start(
    t,
    `console.error('starting with token ${token}'); for (let i = 0; i < 200; i += 1) console.error('line ' + i); setInterval(() => {}, 1000);`,
  );
  t.ok(await eventually(() => run.proc.stderr.includes('line 199'), 30_000));
  await run.proc.stop();
  const logged = run.logLines().join('');
  t.notMatch(logged, new RegExp(token), 'the token never reaches the log');
  t.notMatch(run.proc.stderr, new RegExp(token), 'nor the tail');
  t.match(logged, /starting with token/);
  // 20 lines per second at most: however slowly the 201 lines arrived, each second started logs no more.
  const seconds = Math.ceil((Date.now() - started) / 1000) + 1;
  const count = run.logLines().filter((l) => l.includes('stdio server stderr')).length;
  t.ok(count <= 20 * seconds, `${count} of 201 lines logged in ${seconds} s`);
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
