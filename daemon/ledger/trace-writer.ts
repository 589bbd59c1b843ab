// Group commit for traces. Each project has a queue; while one batch for a project is being
// committed, new traces wait, and the next transaction takes everything waiting (up to the batch
// limit). An idle project therefore pays one transaction per trace, a hot one shares each commit
// (and its WAL flush) among many. A caller is answered only after its trace's COMMIT returned.
//
// When PostgreSQL cannot be reached, batches go to the dead-letter queue instead (dlq-mode.ts).
// Only callers that can answer without a sequence number use appendOrQueue(); append() answers
// with a ledger position or refuses while degraded.
import { randomUUID } from 'node:crypto';
import { DatabaseDownError } from '../db/availability.js';
import type { Sql } from '../db/connect.js';
import { isDatabaseUnreachable } from '../db/unreachable.js';
import type { Logger } from '../log.js';
import { appendTracesAlone, type Appended, type KnownHeads } from './append.js';
import type { DeadLetterQueue } from './dlq.js';
import { DlqMode } from './dlq-mode.js';
import { traceInputProblem } from './dlq-outcome.js';
import type { TraceInput } from './streams.js';
import {
  refuse,
  type TraceCommitted,
  type TraceStoreStatus,
  type TraceWritten,
  type Waiting,
  type WriterObserver,
} from './trace-written.js';

interface ProjectQueue {
  waiting: Waiting[];
  flushing: Promise<void> | null;
}

export interface WriterOptions {
  /** Without it, an unreachable database rejects appends with TraceNotPersistedError. */
  readonly dlq?: DeadLetterQueue;
  readonly log?: Logger;
  /** How often a degraded writer probes PostgreSQL and replays the queue. */
  readonly retryMs?: number;
  /**
   * Whether the database is known down (db/availability.ts): then batches go to the queue without
   * a connection attempt, and the replay waits for it to be up; an unreachable commit marks it down.
   */
  readonly availability?: { readonly down: boolean; markDown(err: unknown): void };
}

const UP: TraceStoreStatus = { degraded: false, queueing: false, dlqDepth: 0, dlqBytes: 0, dlqWriteFailed: false };

export class TraceWriter {
  private readonly queues = new Map<string, ProjectQueue>();
  /** Batches on their way to PostgreSQL or the queue; the switch back waits for them. */
  private readonly running = new Set<Promise<void>>();
  /** The head this writer last wrote per project: its next batch there can skip the head's lock (append.ts). */
  private readonly heads: KnownHeads = new Map();
  /** Null without a dead-letter queue. */
  private readonly mode: DlqMode | null;
  private readonly availability: WriterOptions['availability'] | null;

  constructor(
    private readonly sql: Sql,
    private readonly batchMax: number,
    private readonly observer?: WriterObserver,
    options: WriterOptions = {},
  ) {
    this.availability = options.availability ?? null;
    this.mode = options.dlq
      ? new DlqMode(sql, options.dlq, batchMax, {
          log: options.log ?? null,
          observer,
          retryMs: options.retryMs ?? 1000,
          availability: this.availability,
          idle: async () => {
            while (this.running.size > 0) await Promise.all([...this.running]);
          },
        })
      : null;
  }

  /** Reads the dead-letter queue left by an earlier run; new traces queue behind what it holds. */
  async start(): Promise<void> {
    await this.mode?.start();
  }

  /** Into the ledger, or TraceNotPersistedError while traces go to the dead-letter queue. */
  append(projectId: string, input: TraceInput): Promise<TraceCommitted> {
    return this.enqueue(projectId, input, false) as Promise<TraceCommitted>;
  }

  /** Into the ledger, or into the dead-letter queue when PostgreSQL is unreachable (or the queue not yet replayed). */
  appendOrQueue(projectId: string, input: TraceInput): Promise<TraceWritten> {
    return this.enqueue(projectId, input, true);
  }

  /** Resolves once every trace queued so far has been committed, dead-lettered or refused. */
  async flush(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.flushing));
  }

  async close(): Promise<void> {
    await this.mode?.stop();
    await this.flush();
    await this.mode?.dlq.close();
  }

  status(): TraceStoreStatus {
    return this.mode?.status() ?? UP;
  }

  degradedSubsystems(): string[] {
    return this.mode?.degradedSubsystems() ?? [];
  }

  private enqueue(projectId: string, input: TraceInput, queueable: boolean): Promise<TraceWritten> {
    return new Promise<TraceWritten>((resolve, reject) => {
      const problem = traceInputProblem(input);
      if (problem) return reject(new TypeError(`trace input: ${problem}`));
      const queue = this.queueOf(projectId);
      const id = input.id?.toLowerCase() ?? randomUUID();
      queue.waiting.push({
        input: { ...input, id },
        queueable,
        occurredAt: new Date().toISOString(),
        queuedAt: process.hrtime.bigint(),
        resolve,
        reject,
      });
      if (!queue.flushing) queue.flushing = this.drain(projectId, queue);
    });
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
    const mode = this.mode;
    while (queue.waiting.length > 0) {
      while (mode && mode.hold !== null) await mode.hold;
      const batch = queue.waiting.splice(0, this.batchMax);
      if (mode && !mode.queueing && this.availability?.down) mode.enter(new DatabaseDownError());
      // Chosen and started in the same tick as the check above: nothing can switch modes in between.
      const op = (mode?.queueing ? mode.write(projectId, batch) : this.toDb(projectId, batch)).catch((err: unknown) =>
        batch.forEach((w) => w.reject(err)),
      );
      this.running.add(op);
      await op;
      this.running.delete(op);
    }
    queue.flushing = null;
    this.queues.delete(projectId);
  }

  private async toDb(projectId: string, batch: Waiting[]): Promise<void> {
    const started = process.hrtime.bigint();
    let done: Appended[];
    try {
      done = await appendTracesAlone(
        this.sql,
        projectId,
        batch.map((w) => w.input),
        this.heads,
      );
    } catch (err) {
      if (!isDatabaseUnreachable(err)) {
        // The database refused the batch's data: one caller's trace (a duplicate id, say) must not
        // fail the others', so each is tried alone, in order; only the refused ones get the error.
        if (batch.length === 1) return batch[0]!.reject(err);
        for (const w of batch) await this.toDb(projectId, [w]);
        return;
      }
      this.availability?.markDown(err);
      if (!this.mode) return refuse(batch, this.degradedSubsystems(), err, this.observer);
      this.mode.enter(err);
      return this.mode.write(projectId, batch, err);
    }
    const committed = process.hrtime.bigint();
    this.observer?.batchCommitted(batch.length, Number(committed - started) / 1e9);
    this.observer?.persisted?.('db', batch.length);
    const degradedSubsystems = this.degradedSubsystems();
    batch.forEach((w, i) => {
      this.observer?.traceCommitted(Number(committed - w.queuedAt) / 1e9);
      w.resolve({ ...done[i]!, persisted: 'db', degradedSubsystems });
    });
  }
}
