// The one pino root logger: JSON to stdout for journald, secrets and prompt text redacted once here.
// Lines to stdout are written in batches (one write per ~4 KB, at the latest every 100 ms, and
// synchronously at exit): a write system call per request line cost more than building the line.
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

/**
 * Stdout with lines batched: synchronous writes (a full pipe is waited for, nothing is dropped),
 * each of at least BATCH_BYTES or whatever FLUSH_MS left waiting, and the rest at process exit
 * (the daemon's shutdown, a start-up failure or an uncaught exception all exit through it). Only
 * SIGKILL or a crash of node itself can lose the last FLUSH_MS of lines.
 */
function batchedStdout(): pino.DestinationStream {
  const out = pino.destination({ dest: 1, sync: true, minLength: BATCH_BYTES });
  // flush() writes what waits (synchronously, this being a sync destination); flushSync() also
  // fsyncs, which is for the last write only.
  setInterval(() => {
    try {
      out.flush();
    } catch {
      /* stdout gone: nothing to write to */
    }
  }, FLUSH_MS).unref();
  process.on('exit', () => {
    try {
      out.flushSync();
    } catch {
      /* as above */
    }
  });
  return out;
}

export type { Logger };
