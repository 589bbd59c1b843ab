// Group commit for traces. Each project has a queue; while one batch for a project is being
// committed, new traces wait, and the next transaction takes everything waiting (up to the batch
// limit). An idle project therefore pays one transaction per trace, a hot one shares each commit
// (and its WAL flush) among many. A caller is answered only after its trace's COMMIT returned.
import type { Sql } from '../db/connect.js';
import { appendTraces, type Appended } from './append.js';
import type { TraceInput } from './streams.js';

interface Waiting {
  readonly input: TraceInput;
  readonly queuedAt: bigint;
  resolve(value: Appended): void;
  reject(reason: unknown): void;
}

interface ProjectQueue {
  waiting: Waiting[];
  flushing: Promise<void> | null;
}

export interface WriterObserver {
  batchCommitted(size: number, seconds: number): void;
  /** Time from append() to the trace's commit, per trace. */
  traceCommitted(seconds: number): void;
}

export class TraceWriter {
  private readonly queues = new Map<string, ProjectQueue>();

  constructor(
    private readonly sql: Sql,
    private readonly batchMax: number,
    private readonly observer?: WriterObserver,
  ) {}

  append(projectId: string, input: TraceInput): Promise<Appended> {
    return new Promise<Appended>((resolve, reject) => {
      const queue = this.queueOf(projectId);
      queue.waiting.push({ input, queuedAt: process.hrtime.bigint(), resolve, reject });
      if (!queue.flushing) queue.flushing = this.drain(projectId, queue);
    });
  }

  /** Resolves once every trace queued so far has been committed or refused. */
  async flush(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.flushing));
  }

  private queueOf(projectId: string): ProjectQueue {
    let queue = this.queues.get(projectId);
    if (!queue) {
      queue = { waiting: [], flushing: null };
      this.queues.set(projectId, queue);
    }
    return queue;
  }

  private async drain(projectId: string, queue: ProjectQueue): Promise<void> {
    while (queue.waiting.length > 0) {
      const batch = queue.waiting.splice(0, this.batchMax);
      const started = process.hrtime.bigint();
      try {
        const done = await this.sql.begin((tx) => appendTraces(tx, projectId, batch.map((w) => w.input)));
        const committed = process.hrtime.bigint();
        this.observer?.batchCommitted(batch.length, Number(committed - started) / 1e9);
        batch.forEach((w, i) => {
          this.observer?.traceCommitted(Number(committed - w.queuedAt) / 1e9);
          w.resolve(done[i]!);
        });
      } catch (err) {
        batch.forEach((w) => w.reject(err));
      }
    }
    queue.flushing = null;
    this.queues.delete(projectId);
  }
}
