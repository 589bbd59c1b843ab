// The one pino root logger: JSON to stdout for journald, secrets and prompt text redacted once here.
// Lines to stdout are written in batches (one write per ~4 KB, at the latest every 100 ms, and once
// more at exit): a write system call per request line cost more than building the line.
import { pino, type Logger } from 'pino';

/** Buffered stdout lines are written once this many bytes wait, or after FLUSH_MS at the latest. */
const BATCH_BYTES = 4096;
const FLUSH_MS = 100;

export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  '*.authorization',
  'token',
  '*.token',
  'key',
  '*.key',
  'api_key',
  '*.api_key',
  'password',
  '*.password',
  'prompt',
  '*.prompt',
  'body',
  '*.body',
  'arguments',
  '*.arguments',
  'auth_config',
  '*.auth_config',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gatewayd' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    (destination as pino.DestinationStream | undefined) ?? batchedStdout(),
  );
}

/** Lines that stdout has not taken yet, at most: beyond this, new batches are dropped and counted. */
const MAX_QUEUED_BYTES = 8 * 1024 * 1024;

/** What main.ts needs of the log's destination at shutdown. */
export interface LogOutput {
  /** Hands what waits to stdout and resolves once stdout took it, or after `ms` (a reader that takes nothing). */
  flush(ms: number): Promise<void>;
}

let stdoutOutput: LogOutput | null = null;

/** Flushes the root logger's stdout (a no-op for a logger given its own destination). */
export function flushLogs(ms: number): Promise<void> {
  return stdoutOutput?.flush(ms) ?? Promise.resolve();
}

/**
 * Stdout with lines batched, written through Node's own stdout stream: a file or a terminal is
 * written synchronously as before, a pipe or socket (a shell pipeline, journald) without ever
 * blocking the event loop. A log reader can go away at any time: when stdout fails (EPIPE), lines
 * are dropped from then on and nothing retries; when it stops reading (a full pipe), the daemon
 * goes on serving while up to MAX_QUEUED_BYTES wait, then drops batches and says how much once the
 * reader is back. At exit what waits is handed over once; whatever a full or closed pipe does not
 * take is lost (only then: a live reader gets every line). sonic-boom's synchronous flush retried
 * a write failing with EPIPE forever and hung the exit.
 */
function batchedStdout(out: NodeJS.WritableStream & { writableLength: number } = process.stdout): pino.DestinationStream {
  let pending = '';
  let gone = false;
  let droppedBytes = 0;
  let lastWrite: Promise<void> = Promise.resolve();
  out.on('error', () => {
    gone = true; // EPIPE or any other: nobody can read what comes next
  });
  const push = (): void => {
    if (pending === '') return;
    const batch = pending;
    pending = '';
    if (gone) return;
    if (out.writableLength > MAX_QUEUED_BYTES) {
      droppedBytes += Buffer.byteLength(batch);
      return;
    }
    const note = droppedBytes > 0 ? droppedLine(droppedBytes) : '';
    droppedBytes = 0;
    lastWrite = new Promise<void>((resolve) => {
      out.write(note + batch, () => resolve());
    });
  };
  setInterval(push, FLUSH_MS).unref();
  // The last chance for a start-up failure or an uncaught exception: a pipe with room takes it at once.
  process.on('exit', push);
  stdoutOutput = {
    async flush(ms) {
      push();
      if (gone) return;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([lastWrite, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
    },
  };
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= BATCH_BYTES) push();
    },
  };
}

function droppedLine(bytes: number): string {
  const line = {
    level: 40,
    time: new Date().toISOString(),
    service: 'gatewayd',
    droppedBytes: bytes,
    msg: 'log lines dropped: stdout took none for a while',
  };
  return `${JSON.stringify(line)}\n`;
}

export type { Logger };
