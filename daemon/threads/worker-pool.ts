// A small pool of worker threads that run one kind of job each (attachment extraction, content
// inspection). Workers are kept and reused: loading their libraries costs a second or two. A job
// has a deadline; a worker that overruns it or dies is terminated and replaced. The pool knows
// nothing of what its jobs do: it runs one and says how it ended.

import { Worker, type ResourceLimits } from 'node:worker_threads';

/** Sent once by a worker when its libraries are loaded. */
export const READY = 'ready';

/** What goes to a worker and comes back: the pool numbers each job and matches the reply by it. */
export interface PoolJob {
  readonly id: number;
}

export type JobOutcome<Reply> = { kind: 'done'; reply: Reply } | { kind: 'timeout' } | { kind: 'crashed'; outOfMemory: boolean };

export interface WorkerPoolOptions {
  /** The worker's module: it posts READY once loaded, then answers each job with a reply of the same id. */
  readonly url: URL;
  /** What the pool is called in a start failure's message. */
  readonly name: string;
  readonly size: number;
  /** The heap a worker may build: bounds what a hostile input can make it allocate. */
  readonly resourceLimits: ResourceLimits;
  readonly startupTimeoutMs?: number;
}

const STARTUP_TIMEOUT_MS = 30_000;

interface Waiter {
  resolve(w: Worker): void;
  reject(err: Error): void;
}

export class WorkerPool<Job extends PoolJob, Reply extends PoolJob> {
  readonly #options: WorkerPoolOptions;
  readonly #size: number;
  readonly #idle: Worker[] = [];
  readonly #all = new Set<Worker>();
  readonly #waiters: Waiter[] = [];
  readonly #lastError = new WeakMap<Worker, Error>();
  #nextId = 1;
  /** Workers started so far (a replaced one counts again). */
  started = 0;

  constructor(options: WorkerPoolOptions) {
    this.#options = options;
    this.#size = Math.max(1, options.size);
  }

  /**
   * Runs one job; the deadline counts from the moment a started worker receives it. A worker that
   * cannot start rejects (the caller fails closed).
   */
  async run(input: Omit<Job, 'id'>, timeoutMs: number): Promise<JobOutcome<Reply>> {
    const worker = await this.#acquire();
    const job = { ...input, id: this.#nextId++ } as Job;
    return new Promise<JobOutcome<Reply>>((resolve) => {
      const finish = (outcome: JobOutcome<Reply>, reusable: boolean): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('exit', onExit);
        if (reusable) this.#release(worker);
        else void worker.terminate().catch(() => {});
        resolve(outcome);
      };
      const onMessage = (reply: Reply): void => {
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

  /** Starts workers up to the pool size ahead of need, so the first job waits for none. */
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
    const { url, name, resourceLimits } = this.#options;
    const worker = new Worker(url, { resourceLimits, stdout: true, stderr: true });
    this.started++;
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
        reject(new Error(`${name} worker did not start: ${why}`));
      };
      const onReady = (msg: unknown): void => {
        if (msg !== READY) return;
        clearTimeout(timer);
        worker.off('exit', onEarlyExit);
        worker.off('message', onReady);
        resolve(worker);
      };
      const onEarlyExit = (): void => fail(this.#lastError.get(worker)?.message ?? 'exited');
      const timer = setTimeout(() => fail('timed out'), this.#options.startupTimeoutMs ?? STARTUP_TIMEOUT_MS);
      worker.on('message', onReady);
      worker.once('exit', onEarlyExit);
    });
  }
}
