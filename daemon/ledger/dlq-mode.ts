// Degraded mode of the trace writer. When PostgreSQL cannot be reached, a batch goes to the
// dead-letter queue (dlq.ts) instead, answered after its fsync, and from then on every batch of
// every project goes there until the queue has been replayed into the ledger, so a queued trace is
// never overtaken. The switch back holds new batches only while the last few records are replayed.
import type { Sql } from '../db/connect.js';
import { sqlState } from '../db/sqlstate.js';
import { isDatabaseUnreachable } from '../db/unreachable.js';
import type { Logger } from '../log.js';
import { replayDlq, type ReplayHooks } from './dlq-replay.js';
import type { DeadLetterQueue } from './dlq.js';
import type { DlqRecord } from './dlq-line.js';
import { refuse, TRACE_DLQ, TRACE_STORE, type TraceStoreStatus, type Waiting, type WriterObserver } from './trace-written.js';

export interface DlqModeOptions {
  readonly log: Logger | null;
  readonly observer: WriterObserver | undefined;
  /** How often a degraded writer probes PostgreSQL and replays the queue. */
  readonly retryMs: number;
  readonly availability: { readonly down: boolean; markDown(err: unknown): void } | null;
  /** Resolves once no batch is on its way to PostgreSQL or the queue: the switch back waits for it. */
  idle(): Promise<void>;
}

function recordOf(projectId: string, w: Waiting): DlqRecord {
  const { id, ...trace } = w.input;
  const content = 'occurred_at' in trace.content ? trace.content : { ...trace.content, occurred_at: w.occurredAt };
  return { v: 1, id, project_id: projectId, occurred_at: w.occurredAt, trace: { ...trace, content } };
}

export class DlqMode {
  /** New batches go to the queue. */
  queueing = false;
  private writeFailed = false;
  /** While set, new batches wait: the switch back replays the queue's tail. */
  hold: Promise<void> | null = null;
  private replayed = { offset: 0, lines: 0 };
  private readonly setAsideSeen = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private closed = false;

  constructor(
    private readonly sql: Sql,
    readonly dlq: DeadLetterQueue,
    private readonly batchMax: number,
    private readonly options: DlqModeOptions,
  ) {}

  /** Reads the dead-letter queue left by an earlier run; new traces queue behind what it holds. */
  async start(): Promise<void> {
    const torn = await this.dlq.open();
    if (torn) {
      this.options.observer?.dlqSetAside?.('corrupt');
      this.options.log?.error(
        { file: this.dlq.file, offset: torn.offset, bytes: torn.bytes },
        'dead-letter queue: torn last record (never acknowledged) set aside in traces.corrupt.jsonl',
      );
    }
    if (this.dlq.count > 0) {
      this.queueing = true;
      this.options.log?.warn(
        { depth: this.dlq.count, file: this.dlq.file },
        'dead-letter queue holds traces of an earlier run; new traces queue behind them until replayed',
      );
      this.schedule();
    }
  }

  /** Stops the replay timer and waits for a replay under way; the queue file stays open. */
  async stop(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
  }

  status(): TraceStoreStatus {
    const dlqDepth = Math.max(0, this.dlq.count - this.replayed.lines);
    return {
      degraded: this.queueing || dlqDepth > 0 || this.writeFailed,
      queueing: this.queueing,
      dlqDepth,
      dlqBytes: this.dlq.bytes,
      dlqWriteFailed: this.writeFailed,
    };
  }

  degradedSubsystems(): string[] {
    const s = this.status();
    return [...(s.queueing || s.dlqDepth > 0 ? [TRACE_STORE] : []), ...(s.dlqWriteFailed ? [TRACE_DLQ] : [])];
  }

  enter(err: unknown): void {
    if (!this.queueing) {
      this.queueing = true;
      this.options.log?.warn(
        { code: sqlState(err), file: this.dlq.file },
        'PostgreSQL unreachable: traces go to the dead-letter queue until it is back and the queue replayed',
      );
    }
    this.schedule();
  }

  /** Appends the queueable traces of the batch to the queue (answered after its fsync); refuses the others. */
  async write(projectId: string, all: Waiting[], cause: unknown = null): Promise<void> {
    const { observer, log } = this.options;
    const batch = all.filter((w) => w.queueable);
    if (batch.length < all.length) {
      refuse(
        all.filter((w) => !w.queueable),
        this.degradedSubsystems(),
        cause ?? new Error('traces are going to the dead-letter queue'),
        observer,
      );
    }
    if (batch.length === 0) return;
    try {
      await this.dlq.append(batch.map((w) => recordOf(projectId, w)));
    } catch (err) {
      if (!this.writeFailed) log?.error({ err, file: this.dlq.file }, 'dead-letter queue not writable: traces are refused (503)');
      this.writeFailed = true;
      return refuse(batch, this.degradedSubsystems(), err, observer);
    }
    this.writeFailed = false;
    observer?.persisted?.('dlq', batch.length);
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

  private schedule(): void {
    if (this.timer || this.ticking || this.closed || !this.queueing) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.ticking = this.replayTick()
        .catch((err: unknown) => this.options.log?.error({ err }, 'dead-letter queue replay failed; retrying'))
        .finally(() => {
          this.ticking = null;
          this.schedule();
        });
    }, this.options.retryMs);
    this.timer.unref();
  }

  /** Replays while traffic still queues, then holds new batches, replays the tail and switches back. */
  private async replayTick(): Promise<void> {
    if (this.options.availability?.down) return; // its probe says when to try again
    try {
      await this.sql`select 1`;
    } catch (err) {
      if (isDatabaseUnreachable(err)) return this.options.availability?.markDown(err);
      throw err;
    }
    for (let round = 0; round < 8 && this.dlq.count - this.replayed.lines > this.batchMax; round++) {
      if (!(await this.replayUpTo(this.dlq.bytes))) return;
    }
    let release!: () => void;
    this.hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await this.options.idle();
      if (!(await this.replayUpTo(this.dlq.bytes))) return;
      if (!(await this.dlq.resetIfAt(this.replayed.offset))) return;
      this.replayed = { offset: 0, lines: 0 };
      this.setAsideSeen.clear();
      this.queueing = false;
      this.writeFailed = false;
      this.options.log?.info({ file: this.dlq.file }, 'dead-letter queue replayed into the ledger; traces go to PostgreSQL again');
    } finally {
      this.hold = null;
      release();
    }
  }

  private async replayUpTo(to: number): Promise<boolean> {
    const progress = await replayDlq(this.sql, this.dlq, this.replayed.offset, to, this.batchMax, this.replayHooks, this.setAsideSeen);
    this.replayed = { offset: progress.offset, lines: this.replayed.lines + progress.lines };
    return progress.reachable && progress.offset === to;
  }

  private readonly replayHooks: ReplayHooks = {
    replayed: (count) => {
      if (count > 0) this.options.observer?.dlqReplayed?.(count);
    },
    stopping: () => this.closed,
    setAside: (kind, d) => {
      this.options.observer?.dlqSetAside?.(kind);
      this.options.log?.error(
        { kind, offset: d.offset, trace_id: d.id, file: d.file, reason: d.reason },
        kind === 'corrupt' ? 'dead-letter queue: damaged record set aside' : 'dead-letter queue: record refused by the database, set aside',
      );
    },
  };
}
