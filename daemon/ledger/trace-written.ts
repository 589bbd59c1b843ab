// What the trace writer answers its callers, and what a batch of it is made of: shared by the
// group commit (trace-writer.ts) and the dead-letter mode (dlq-mode.ts).
import type { Appended } from './append.js';
import { TraceNotPersistedError, type TracePersisted } from './dlq-outcome.js';
import type { SetAsideKind } from './dlq.js';
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

/** A caller's trace waiting for its batch. */
export interface Waiting {
  readonly input: TraceInput & { readonly id: string };
  /** May go to the dead-letter queue (appendOrQueue); otherwise refused while degraded. */
  readonly queueable: boolean;
  readonly occurredAt: string;
  readonly queuedAt: bigint;
  resolve(value: TraceWritten): void;
  reject(reason: unknown): void;
}

export interface WriterObserver {
  batchCommitted(size: number, seconds: number): void;
  /** Time from append() to the trace's commit, per trace. */
  traceCommitted(seconds: number): void;
  persisted?(to: TracePersisted, count: number): void;
  dlqReplayed?(count: number): void;
  dlqSetAside?(kind: SetAsideKind): void;
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

/** Rejects every caller of the batch with TraceNotPersistedError naming the degraded subsystems. */
export function refuse(batch: readonly Waiting[], degradedSubsystems: readonly string[], cause: unknown, observer?: WriterObserver): void {
  observer?.persisted?.('none', batch.length);
  const error = new TraceNotPersistedError([...new Set([TRACE_STORE, ...degradedSubsystems])], cause);
  for (const w of batch) w.reject(error);
}
