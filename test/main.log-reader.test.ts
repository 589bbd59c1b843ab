// A stop that always stops (issue 24, item 4): gatewayd's stdout is a pipe whose reader can die
// (`npm start | tee log`, then Ctrl-C) or stop reading. Either way the daemon keeps answering and a
// SIGTERM ends it with status 0 within its shutdown budget, losing only the lines nobody can read.
// The pipe is a real FIFO the test holds the read end of, as a shell pipeline's reader would.
import { execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { freshDatabase } from './helpers/db.js';
import { freeLoopbackPort } from './helpers/ports.js';
import { spawnDaemon } from './helpers/spawn-daemon.js';

/** Generous: a stop takes seconds; the bug was a stop that never ended. */
const EXIT_DEADLINE_MS = 90_000;
const SHUTDOWN_SECONDS = '5';

/** A FIFO with its read end open here (never read unless the test says so) and its write end for the child. */
function fifo(t: Test): { reader: number; writer: number } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-fifo-'));
  const file = path.join(dir, 'stdout');
  execFileSync('mkfifo', [file]);
  const reader = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const writer = fs.openSync(file, fs.constants.O_WRONLY);
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return { reader, writer };
}

function exitWithin(child: ChildProcess, ms: number): Promise<{ code: number | null; signal: string | null } | 'still running'> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('still running'), ms);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

async function daemonOnFifo(t: Test) {
  const pipe = fifo(t);
  const port = await freeLoopbackPort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-reader-'));
  const d = spawnDaemon(
    {
      DATABASE_URL: await freshDatabase(t),
      GATEWAY_DATA_DIR: dataDir,
      GATEWAY_LISTEN: `127.0.0.1:${port}`,
      GATEWAY_SHUTDOWN_TIMEOUT_SECONDS: SHUTDOWN_SECONDS,
    },
    { stdout: pipe.writer },
  );
  fs.closeSync(pipe.writer); // the child holds it now
  t.teardown(async () => {
    if (d.child.exitCode === null && d.child.signalCode === null) d.child.kill('SIGKILL');
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return { d, url: await d.url, reader: pipe.reader };
}

/** `n` requests to /healthz, `concurrency` at a time: each writes a log line. The statuses seen. */
async function healthz(url: string, n: number, concurrency = 4): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  let left = n;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (left-- > 0) {
        const status = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(20_000) }).then(
          (res) => String(res.status),
          (err: Error) => err.name,
        );
        seen[status] = (seen[status] ?? 0) + 1;
      }
    }),
  );
  return seen;
}

t.test('the log reader dies (EPIPE): the daemon keeps answering, and SIGTERM exits 0 within its budget', async (t) => {
  const { d, url, reader } = await daemonOnFifo(t);
  fs.closeSync(reader); // `tee` is gone: every write to stdout now fails with EPIPE
  t.same(await healthz(url, 300), { 200: 300 }, 'every request answered after the reader died');
  d.child.kill('SIGTERM');
  const exit = await exitWithin(d.child, EXIT_DEADLINE_MS);
  t.same(exit, { code: 0, signal: null }, 'exited 0');
});

t.test('a full pipe nobody reads: the daemon keeps answering /healthz, and SIGTERM exits 0 within its budget', async (t) => {
  const { d, url, reader } = await daemonOnFifo(t);
  // About 200 bytes of log a request: 2,000 requests write several times the 64 KiB a pipe holds.
  t.same(await healthz(url, 2000), { 200: 2000 }, 'every request answered while stdout takes nothing');
  d.child.kill('SIGTERM');
  const exit = await exitWithin(d.child, EXIT_DEADLINE_MS);
  t.same(exit, { code: 0, signal: null }, 'exited 0 although the last lines could not be written');
  fs.closeSync(reader);
});

t.test('a reader that comes back gets the lines that waited for it', async (t) => {
  const { d, url, reader } = await daemonOnFifo(t);
  t.same(await healthz(url, 1000), { 200: 1000 });
  // Now read it all, as a reader that was only slow would.
  const chunks: Buffer[] = [];
  const buf = Buffer.alloc(65536);
  const deadline = Date.now() + 60_000;
  let text = '';
  // At least the 1,000: spawnDaemon's own wait for /healthz logged a line or more before them.
  while (Date.now() < deadline && (text.match(/"route":"\/healthz"/g) ?? []).length < 1000) {
    let n = 0;
    try {
      n = fs.readSync(reader, buf);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
    if (n > 0) {
      chunks.push(Buffer.from(buf.subarray(0, n)));
      text = Buffer.concat(chunks).toString('utf8');
    } else await new Promise((r) => setTimeout(r, 50));
  }
  const lines = (text.match(/"route":"\/healthz"/g) ?? []).length;
  t.ok(lines >= 1000, `every request line arrived, none dropped (${lines})`);
  t.notMatch(text, /droppedBytes/, 'nothing was dropped');
  d.child.kill('SIGTERM');
  t.same(await exitWithin(d.child, EXIT_DEADLINE_MS), { code: 0, signal: null });
  fs.closeSync(reader);
});
