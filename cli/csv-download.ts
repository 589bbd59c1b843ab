// Downloads a CSV route of the daemon as a stream: the body goes straight to FILE.partial, renamed
// to FILE only once all of it arrived, or to stdout; it is counted on the way and never held in
// memory. Refusals and transport failures become the same CLI errors as ApiClient.request's.
import { once } from 'node:events';
import fs, { type FileHandle } from 'node:fs/promises';
import os from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { request } from 'undici';
import { ApiClient } from './api-client.js';
import type { Connection } from './config.js';
import { CsvCounter, type CsvTally, type Progress } from './csv-tally.js';
import { CliFailure, GatewayRefusal, GatewayUnavailable, UsageError } from './errors.js';

/** Until the answer starts, and then between two pieces of it: a live export never pauses this long. */
const IDLE_MS = 30_000;
/** Enough of a refusal's body for its error object; an endless one is not read further. */
const ERROR_BODY_MAX = 64 * 1024;

function errorCode(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  return err instanceof Error && err.message ? err.message : 'unknown';
}

function transportReason(err: unknown): string {
  const code = errorCode(err);
  if (code === 'UND_ERR_HEADERS_TIMEOUT') return `no answer within ${IDLE_MS / 1000}s`;
  if (code === 'UND_ERR_BODY_TIMEOUT') return `no data for ${IDLE_MS / 1000}s`;
  return code;
}

async function readHead(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length >= ERROR_BODY_MAX) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** The daemon's error object when it sent one, else what the status says about the server. */
function refusal(url: string, status: number, text: string): Error {
  let parsed: { error?: { code?: unknown; message?: unknown; request_id?: unknown } } | undefined;
  try {
    parsed = JSON.parse(text) as typeof parsed;
  } catch {
    parsed = undefined;
  }
  const e = parsed?.error;
  if (status >= 300 && typeof e?.code === 'string' && typeof e.message === 'string') {
    return new GatewayRefusal(status, e.code, e.message, typeof e.request_id === 'string' ? e.request_id : undefined);
  }
  if (status < 300) return new GatewayUnavailable(`${url} answered ${status} without CSV; is it a gateway?`);
  if (status >= 500) return new GatewayUnavailable(`${url} answered HTTP ${status}`);
  return new GatewayRefusal(status, `http_${status}`, `${url} answered without a gateway error body; is it a gateway?`, undefined);
}

/** The API client plus streamed CSV downloads (ApiClient reads whole JSON bodies). */
export class CsvClient extends ApiClient {
  constructor(
    private readonly target: Connection,
    private readonly agent: string,
  ) {
    super(target, agent);
  }

  /** A GET of a CSV route whose body is returned unread, for the caller to stream. */
  async openCsv(route: string, signal: AbortSignal): Promise<Readable> {
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(this.target.url + route, {
        method: 'GET',
        headers: { accept: 'text/csv', authorization: `Bearer ${await this.bearer()}`, 'user-agent': this.agent },
        headersTimeout: IDLE_MS,
        bodyTimeout: IDLE_MS,
        signal,
      });
    } catch (err) {
      if (signal.aborted) throw err;
      throw new GatewayUnavailable(`cannot reach the gateway at ${this.target.url} (${transportReason(err)})`);
    }
    const type = String(res.headers['content-type'] ?? '');
    if (res.statusCode >= 200 && res.statusCode < 300 && type.startsWith('text/csv')) return res.body;
    if (res.statusCode < 300) {
      res.body.destroy();
      throw refusal(this.target.url, res.statusCode, '');
    }
    throw refusal(this.target.url, res.statusCode, await readHead(res.body).catch(() => ''));
  }
}

interface Sink {
  readonly name: string;
  readonly stream: Writable;
  commit(): Promise<void>;
  discard(): Promise<void>;
}

/**
 * FILE.partial is created exclusively (never through a symlink someone left there), 0600 since
 * traces hold prompts, and becomes FILE by rename after an fsync, so FILE is always whole.
 */
async function fileSink(file: string): Promise<Sink> {
  const partial = `${file}.partial`;
  let handle: FileHandle;
  try {
    handle = await fs.open(partial, 'wx', 0o600);
  } catch (err) {
    const code = errorCode(err);
    if (code === 'EEXIST')
      throw new UsageError(`${partial} exists: another export to ${file} is running, or one was killed; remove it and retry`);
    throw new UsageError(`cannot write ${partial}: ${code}`);
  }
  // flush: the stream fsyncs before it closes the handle, and pipeline resolves only after that close.
  const stream = handle.createWriteStream({ flush: true });
  return {
    name: file,
    stream,
    async commit() {
      try {
        await fs.rename(partial, file);
      } catch (err) {
        throw new UsageError(`cannot write ${file}: ${errorCode(err)}`);
      }
    },
    async discard() {
      if (!stream.closed) {
        const closed = once(stream, 'close').catch(() => undefined);
        stream.destroy();
        await closed;
      }
      await fs.rm(partial, { force: true });
    },
  };
}

function stdoutSink(): Sink {
  return { name: 'stdout', stream: process.stdout, commit: async () => {}, discard: async () => {} };
}

/** Stopped by Ctrl-C or a TERM: the shell's convention, 128 + the signal's number. */
export class Interrupted extends CliFailure {
  readonly exitCode: number;
  readonly code = 'interrupted';

  constructor(signal: NodeJS.Signals, left: string) {
    super(`interrupted by ${signal}; ${left}`);
    this.exitCode = 128 + os.constants.signals[signal];
  }
}

/** Streams `route` to `out` (a file, or `-` for stdout); Ctrl-C removes the partial file first. */
export async function downloadCsv(client: CsvClient, route: string, out: string, progress: Progress): Promise<CsvTally> {
  const sink = out === '-' ? stdoutSink() : await fileSink(out);
  const abort = new AbortController();
  let signalled: NodeJS.Signals | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    signalled = signal;
    abort.abort();
  };
  // on, not once: a second Ctrl-C during the clean-up must not kill the process before it is done.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const counter = new CsvCounter((tally) => progress.update(tally));
  const left = out === '-' ? 'stdout holds an incomplete export' : `${out} was not written`;
  try {
    const body = await client.openCsv(route, abort.signal);
    // pipeline destroys every stream with the first error, so only the first 'error' says where it began.
    let origin: 'gateway' | 'output' | undefined;
    body.on('error', () => {
      origin ??= 'gateway';
    });
    sink.stream.on('error', () => {
      origin ??= 'output';
    });
    try {
      await pipeline(body, counter, sink.stream);
    } catch (err) {
      if (origin === 'output') throw new UsageError(`cannot write ${sink.name}: ${errorCode(err)}`);
      throw new GatewayUnavailable(
        `the export from ${client.url} broke off after ${counter.tally.rows} rows (${transportReason(err)}); ${left}`,
      );
    }
    await sink.commit();
    return counter.tally;
  } catch (err) {
    await sink.discard();
    throw signalled ? new Interrupted(signalled, left) : err;
  } finally {
    progress.clear();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
