// A small pool of extractor worker threads. Loading pdf.js costs about a second, so workers are
// kept and reused; one that overruns its time budget or dies is terminated and replaced. The
// pool knows nothing about attachments: it runs a job and says how it ended.

import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ExtractJob, ExtractReply } from './worker-protocol.js';
import { READY } from './worker-protocol.js';

export type JobOutcome = { kind: 'done'; reply: ExtractReply } | { kind: 'timeout' } | { kind: 'crashed'; outOfMemory: boolean };

const WORKER_URL = new URL('./extract-worker.js', import.meta.url);
const STARTUP_TIMEOUT_MS = 30_000;
// The heap cap bounds what pdf.js and mammoth can build from a hostile file; ArrayBuffers are
// outside it, which is why DOCX goes through the zip guard and every job has a deadline.
const RESOURCE_LIMITS = { maxOldGenerationSizeMb: 256, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 };

type JobInput = Omit<ExtractJob, 'id'>;
interface Waiter {
  resolve(w: Worker): void;
  reject(err: Error): void;
}

export class ExtractorPool {
  readonly #size: number;
  readonly #idle: Worker[] = [];
  readonly #all = new Set<Worker>();
  readonly #waiters: Waiter[] = [];
  readonly #lastError = new WeakMap<Worker, Error>();
  #nextId = 1;

  constructor(size: number) {
    this.#size = Math.max(1, size);
  }

  /** Runs one job; the deadline counts from the moment a started worker receives it. */
  async run(input: JobInput, timeoutMs: number): Promise<JobOutcome> {
    const worker = await this.#acquire();
    const job: ExtractJob = { ...input, id: this.#nextId++ };
    return new Promise<JobOutcome>((resolve) => {
      const finish = (outcome: JobOutcome, reusable: boolean): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        if (reusable) this.#release(worker);
        else void worker.terminate().catch(() => {});
        resolve(outcome);
      };
      const onMessage = (reply: ExtractReply): void => {
        if (reply.id === job.id) finish({ kind: 'done', reply }, true);
      };
      const onExit = (): void => {
        const err = this.#lastError.get(worker) as NodeJS.ErrnoException | undefined;
        finish({ kind: 'crashed', outOfMemory: err?.code === 'ERR_WORKER_OUT_OF_MEMORY' }, false);
      };
      const timer = setTimeout(() => finish({ kind: 'timeout' }, false), timeoutMs);
      worker.on('message', onMessage);
      worker.on('exit', onExit);
      worker.ref();
      worker.postMessage(job);
    });
  }

  /** Starts workers up to the pool size ahead of need, so the first attachment waits for none. */
  async warm(): Promise<void> {
    const starting: Array<Promise<Worker>> = [];
    while (this.#all.size < this.#size) starting.push(this.#spawn());
    const settled = await Promise.allSettled(starting);
    for (const s of settled) if (s.status === 'fulfilled') this.#release(s.value);
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
  }

  /** Terminates every worker; the pool starts new ones if used again. */
  async close(): Promise<void> {
    const all = [...this.#all];
    this.#idle.length = 0;
    await Promise.all(all.map((w) => w.terminate().catch(() => 0)));
  }

  #acquire(): Promise<Worker> {
    const idle = this.#idle.pop();
    if (idle !== undefined) return Promise.resolve(idle);
    if (this.#all.size < this.#size) return this.#spawn();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  #release(worker: Worker): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) return waiter.resolve(worker);
    worker.unref();
    this.#idle.push(worker);
  }

  // A worker that exits frees its place; somebody waiting for one gets a fresh worker.
  #forget(worker: Worker): void {
    this.#all.delete(worker);
    const at = this.#idle.indexOf(worker);
    if (at !== -1) this.#idle.splice(at, 1);
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) this.#spawn().then(waiter.resolve, waiter.reject);
  }

  #spawn(): Promise<Worker> {
    const worker = new Worker(WORKER_URL, { resourceLimits: RESOURCE_LIMITS, stdout: true, stderr: true });
    this.#all.add(worker);
    // An 'error' without a listener would be rethrown on the daemon's thread.
    worker.on('error', (err) => this.#lastError.set(worker, err));
    worker.once('exit', () => this.#forget(worker));
    // Piped but never read: drain so a chatty library cannot fill the pipe.
    worker.stdout.resume();
    worker.stderr.resume();
    return new Promise<Worker>((resolve, reject) => {
      const fail = (why: string): void => {
        clearTimeout(timer);
        worker.off('message', onReady);
        worker.off('exit', onEarlyExit);
        void worker.terminate().catch(() => {});
        reject(new Error(`attachment extractor worker did not start: ${why}`));
      };
      const onReady = (msg: unknown): void => {
        if (msg !== READY) return;
        clearTimeout(timer);
        worker.off('exit', onEarlyExit);
        worker.off('message', onReady);
        resolve(worker);
      };
      const onEarlyExit = (): void => fail(this.#lastError.get(worker)?.message ?? 'exited');
      const timer = setTimeout(() => fail('timed out'), STARTUP_TIMEOUT_MS);
      worker.on('message', onReady);
      worker.once('exit', onEarlyExit);
    });
  }
}

let shared: ExtractorPool | undefined;

/** The process-wide pool, sized to at most two workers (the deployment has two cores). */
export function sharedPool(): ExtractorPool {
  shared ??= new ExtractorPool(Math.min(2, availableParallelism()));
  return shared;
}

export async function closeSharedPool(): Promise<void> {
  const pool = shared;
  shared = undefined;
  if (pool !== undefined) await pool.close();
}
