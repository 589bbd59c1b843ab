// What degraded mode decides on: which input may never go to the dead-letter queue (what
// PostgreSQL would refuse), and what a caller learns (persisted db | dlq | none, the degraded
// subsystems). Which errors send a trace there is db/unreachable.ts's answer.
import { holdsUnstorableText } from '../../shared/text.js';
import { canonicalContent } from './content-text.js';
import type { TraceInput } from './streams.js';

export type TracePersisted = 'db' | 'dlq' | 'none';

/** Where a trace landed and what runs degraded: what the governance headers are made of. */
export interface PersistOutcome {
  readonly persisted: TracePersisted;
  readonly degradedSubsystems: readonly string[];
}

/** Neither PostgreSQL nor the dead-letter queue took the trace: the route answers 503, no body. */
export class TraceNotPersistedError extends Error implements PersistOutcome {
  readonly code = 'trace_not_persisted';
  readonly persisted = 'none';

  constructor(
    readonly degradedSubsystems: readonly string[],
    cause: unknown,
  ) {
    super('the trace could not be recorded durably (database and dead-letter queue both unavailable)', { cause });
    this.name = 'TraceNotPersistedError';
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** What PostgreSQL would refuse for certain, checked first so that no such trace is ever dead-lettered. */
export function traceInputProblem(input: TraceInput): string | null {
  if (input.id !== undefined && !UUID.test(input.id)) return 'id must be a UUID';
  if (typeof input.traceType !== 'string' || typeof input.decision !== 'string') return 'traceType and decision must be strings';
  for (const key of ['reason', 'actionName', 'environment', 'agentId'] as const) {
    if (input[key] != null && typeof input[key] !== 'string') return `${key} must be a string`;
  }
  if (!input.content || typeof input.content !== 'object' || Array.isArray(input.content)) return 'content must be an object';
  try {
    canonicalContent(input.content); // kept for the content hash: serialised once per trace
  } catch {
    return 'content is not serialisable as JSON';
  }
  return holdsUnstorableText(input) ? 'text must not contain NUL characters or lone surrogates' : null;
}
