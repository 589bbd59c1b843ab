// Group commit for traces. Each project has a queue; while one batch for a project is being
// committed, new traces wait, and the next transaction takes everything waiting (up to the batch
// limit). An idle project therefore pays one transaction per trace, a hot one shares each commit
// (and its WAL flush) among many. A caller is answered only after its trace's COMMIT returned.
//
// Degraded mode: when PostgreSQL cannot be reached, a batch goes to the dead-letter queue
// (dlq.ts) instead, answered after its fsync, and from then on every batch of every project goes
// there until the queue has been replayed into the ledger, so a queued trace is never overtaken.
// The switch back holds new batches only while the last few records are replayed. Only callers
// that can answer without a sequence number use appendOrQueue(); append() answers with a ledger
// position or refuses while degraded.
import { randomUUID } from 'node:crypto';
import { DatabaseDownError } from '../db/availability.js';
import type { Sql } from '../db/connect.js';
import { sqlState } from '../db/sqlstate.js';
import { isDatabaseUnreachable } from '../db/unreachable.js';
import type { Logger } from '../log.js';
import { appendTracesAlone, type Appended, type KnownHeads } from './append.js';
import { replayDlq, type ReplayHooks } from './dlq-replay.js';
import type { DeadLetterQueue, DlqRecord, SetAsideKind } from './dlq.js';
import { TraceNotPersistedError, traceInputProblem, type TracePersisted } from './dlq-outcome.js';
import type { TraceInput } from './streams.js';

/** A trace in the ledger, at its position. */
export type TraceCommitted = Appended & { readonly persisted: 'db'; readonly degradedSubsystems: readonly string[] };

/** A trace in the dead-letter queue: its id is final; sequence number, hashes and created_at come at replay. */
export interface TraceQueued {
  readonly id: string;
  readonly persisted: 'dlq';
  readonly sequenceNum: null;
  readonly integrityHash: null;
  readonly createdAt: null;
  /** The decision time, kept in the trace's content as `occurred_at`. */
  readonly occurredAt: string;
  readonly degradedSubsystems: readonly string[];
}

export type TraceWritten = TraceCommitted | TraceQueued;

interface Waiting {
  readonly input: TraceInput & { readonly id: string };
  /** May go to the dead-letter queue (appendOrQueue); otherwise refused while degraded. */
  readonly queueable: boolean;
  readonly occurredAt: string;
  readonly queuedAt: bigint;
  resolve(value: TraceWritten): void;
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
  persisted?(to: TracePersisted, count: number): void;
  dlqReplayed?(count: number): void;
  dlqSetAside?(kind: SetAsideKind): void;
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

export interface TraceStoreStatus {
  readonly degraded: boolean;
  /** New traces go to the dead-letter queue: PostgreSQL unreachable, or the queue not yet replayed. */
  readonly queueing: boolean;
  readonly dlqDepth: number;
  readonly dlqBytes: number;
  readonly dlqWriteFailed: boolean;
}

/** Names in X-Gateway-Degraded-Subsystems and /healthz. */
export const TRACE_STORE = 'trace_store';
export const TRACE_DLQ = 'trace_dlq';

function recordOf(projectId: string, w: Waiting): DlqRecord {
  const { id, ...trace } = w.input;
  const content = 'occurred_at' in trace.content ? trace.content : { ...trace.content, occurred_at: w.occurredAt };
  return { v: 1, id, project_id: projectId, occurred_at: w.occurredAt, trace: { ...trace, content } };
}

export class TraceWriter {
  private readonly queues = new Map<string, ProjectQueue>();
  /** Batches on their way to PostgreSQL or the queue; the switch back waits for them. */
  private readonly running = new Set<Promise<void>>();
  /** The head this writer last wrote per project: its next batch there can skip the head's lock (append.ts). */
  private readonly heads: KnownHeads = new Map();
  private readonly dlq: DeadLetterQueue | null;
  private readonly log: Logger | null;
  private readonly retryMs: number;
  private readonly availability: WriterOptions['availability'] | null;
  private queueing = false;
  private dlqWriteFailed = false;
  private hold: Promise<void> | null = null;
  private replayed = { offset: 0, lines: 0 };
  private readonly setAsideSeen = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly sql: Sql,
    private readonly batchMax: number,
    private readonly observer?: WriterObserver,
    options: WriterOptions = {},
  ) {
    this.dlq = options.dlq ?? null;
    this.log = options.log ?? null;
    this.retryMs = options.retryMs ?? 1000;
    this.availability = options.availability ?? null;
  }

  /** Reads the dead-letter queue left by an earlier run; new traces queue behind what it holds. */
  async start(): Promise<void> {
    if (!this.dlq) return;
    const torn = await this.dlq.open();
    if (torn) {
      this.observer?.dlqSetAside?.('corrupt');
      this.log?.error(
        { file: this.dlq.file, offset: torn.offset, bytes: torn.bytes },
        'dead-letter queue: torn last record (never acknowledged) set aside in traces.corrupt.jsonl',
      );
    }
    if (this.dlq.count > 0) {
      this.queueing = true;
      this.log?.warn(
        { depth: this.dlq.count, file: this.dlq.file },
        'dead-letter queue holds traces of an earlier run; new traces queue behind them until replayed',
      );
      this.schedule();
    }
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
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await this.flush();
    await this.dlq?.close();
  }

  status(): TraceStoreStatus {
    const dlqDepth = this.dlq ? Math.max(0, this.dlq.count - this.replayed.lines) : 0;
    return {
      degraded: this.queueing || dlqDepth > 0 || this.dlqWriteFailed,
      queueing: this.queueing,
      dlqDepth,
      dlqBytes: this.dlq?.bytes ?? 0,
      dlqWriteFailed: this.dlqWriteFailed,
    };
  }

  degradedSubsystems(): string[] {
    const s = this.status();
    return [...(s.queueing || s.dlqDepth > 0 ? [TRACE_STORE] : []), ...(s.dlqWriteFailed ? [TRACE_DLQ] : [])];
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
    while (queue.waiting.length > 0) {
      while (this.hold !== null) await this.hold;
      const batch = queue.waiting.splice(0, this.batchMax);
      if (!this.queueing && this.dlq && this.availability?.down) this.enterQueueing(new DatabaseDownError());
      // Chosen and started in the same tick as the check above: nothing can switch modes in between.
      const op = (this.queueing ? this.toDlq(projectId, batch) : this.toDb(projectId, batch)).catch((err: unknown) =>
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
      if (!this.dlq) return this.refuse(batch, err);
      this.enterQueueing(err);
      return this.toDlq(projectId, batch, err);
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

  private async toDlq(projectId: string, all: Waiting[], cause: unknown = null): Promise<void> {
    const batch = all.filter((w) => w.queueable);
    if (batch.length < all.length) {
      this.refuse(
        all.filter((w) => !w.queueable),
        cause ?? new Error('traces are going to the dead-letter queue'),
      );
    }
    if (batch.length === 0) return;
    try {
      await this.dlq!.append(batch.map((w) => recordOf(projectId, w)));
    } catch (err) {
      if (!this.dlqWriteFailed) this.log?.error({ err, file: this.dlq!.file }, 'dead-letter queue not writable: traces are refused (503)');
      this.dlqWriteFailed = true;
      return this.refuse(batch, err);
    }
    this.dlqWriteFailed = false;
    this.observer?.persisted?.('dlq', batch.length);
    const degradedSubsystems = this.degradedSubsystems();
    for (const w of batch) {
      w.resolve({
        id: w.input.id,
        persisted: 'dlq',
        sequenceNum: null,
        integrityHash: null,
        createdAt: null,
        occurredAt: w.occurredAt,
        degradedSubsystems,
      });
    }
  }

  private refuse(batch: Waiting[], cause: unknown): void {
    this.observer?.persisted?.('none', batch.length);
    const error = new TraceNotPersistedError([...new Set([TRACE_STORE, ...this.degradedSubsystems()])], cause);
    batch.forEach((w) => w.reject(error));
  }

  private enterQueueing(err: unknown): void {
    if (!this.queueing) {
      this.queueing = true;
      this.log?.warn(
        { code: sqlState(err), file: this.dlq!.file },
        'PostgreSQL unreachable: traces go to the dead-letter queue until it is back and the queue replayed',
      );
    }
    this.schedule();
  }

  private schedule(): void {
    if (this.timer || this.ticking || this.closed || !this.queueing) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ticking = this.replayTick()
        .catch((err: unknown) => this.log?.error({ err }, 'dead-letter queue replay failed; retrying'))
        .finally(() => {
          this.ticking = null;
          this.schedule();
        });
    }, this.retryMs);
    this.timer.unref();
  }

  /** Replays while traffic still queues, then holds new batches, replays the tail and switches back. */
  private async replayTick(): Promise<void> {
    if (this.availability?.down) return; // its probe says when to try again
    try {
      await this.sql`select 1`;
    } catch (err) {
      if (isDatabaseUnreachable(err)) return this.availability?.markDown(err);
      throw err;
    }
    for (let round = 0; round < 8 && this.dlq!.count - this.replayed.lines > this.batchMax; round++) {
      if (!(await this.replayUpTo(this.dlq!.bytes))) return;
    }
    let release!: () => void;
    this.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      while (this.running.size > 0) await Promise.all([...this.running]);
      if (!(await this.replayUpTo(this.dlq!.bytes))) return;
      if (!(await this.dlq!.resetIfAt(this.replayed.offset))) return;
      this.replayed = { offset: 0, lines: 0 };
      this.setAsideSeen.clear();
      this.queueing = false;
      this.dlqWriteFailed = false;
      this.log?.info({ file: this.dlq!.file }, 'dead-letter queue replayed into the ledger; traces go to PostgreSQL again');
    } finally {
      this.hold = null;
      release();
    }
  }

  private async replayUpTo(to: number): Promise<boolean> {
    const progress = await replayDlq(this.sql, this.dlq!, this.replayed.offset, to, this.batchMax, this.replayHooks, this.setAsideSeen);
    this.replayed = { offset: progress.offset, lines: this.replayed.lines + progress.lines };
    return progress.reachable && progress.offset === to;
  }

  private readonly replayHooks: ReplayHooks = {
    replayed: (count) => {
      if (count > 0) this.observer?.dlqReplayed?.(count);
    },
    stopping: () => this.closed,
    setAside: (kind, d) => {
      this.observer?.dlqSetAside?.(kind);
      this.log?.error(
        { kind, offset: d.offset, trace_id: d.id, file: d.file, reason: d.reason },
        kind === 'corrupt' ? 'dead-letter queue: damaged record set aside' : 'dead-letter queue: record refused by the database, set aside',
      );
    },
  };
}
