// What degraded mode decides on: which database errors send a trace to the dead-letter queue
// (unreachable, by error code), which input may never go there (what PostgreSQL would refuse), and
// what a caller learns (persisted db | dlq | none, the degraded subsystems).
import { holdsUnstorableText } from '../../shared/text.js';
import { sqlState } from '../db/sqlstate.js';
import type { Sql, Tx } from '../db/connect.js';
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

  constructor(readonly degradedSubsystems: readonly string[], cause: unknown) {
    super('the trace could not be recorded durably (database and dead-letter queue both unavailable)', { cause });
    this.name = 'TraceNotPersistedError';
  }
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH',
  'EHOSTDOWN', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN']);
const DRIVER_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT']);

/**
 * True when PostgreSQL could not be reached or went away (socket errors, postgres.js connection
 * codes, SQLSTATE class 08, 57P0x shutdown/crash/starting up): the only errors that send a trace to
 * the dead-letter queue. Anything else (constraint, bad input) is a fault the caller must see.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.every(isDatabaseUnreachable);
  const code = sqlState(err);
  if (!code) return false;
  return NETWORK_CODES.has(code) || DRIVER_CODES.has(code) || /^08[0-9A-Z]{3}$/.test(code) || /^57P0[0-9]$/.test(code);
}

/** How long begin() may stay unsettled after the connection failed inside it (see below). */
const DEAD_TRANSACTION_MS = 5_000;

/**
 * sql.begin() for transactions that must survive the database going away. postgres.js 3.4.9
 * answers a failed callback with a ROLLBACK that it writes, from a setImmediate, to the socket the
 * failure already closed, and the process dies of the TypeError (porsager/postgres#1208, open).
 * So a callback that failed because the connection is gone never settles: begin() rejects on its
 * own when it notices the close, and the guard rejects if it does not within DEAD_TRANSACTION_MS.
 */
export function beginSurvivingDisconnect<T>(sql: Sql, fn: (tx: Tx) => Promise<T>): Promise<T> {
  let cut!: (err: unknown) => void;
  const guard = new Promise<never>((_, reject) => { cut = reject; });
  const run = sql.begin((tx) => fn(tx).catch((err: unknown) => {
    if (!isDatabaseUnreachable(err)) throw err;
    setTimeout(() => cut(err), DEAD_TRANSACTION_MS).unref();
    return new Promise<T>(() => {});
  })) as Promise<T>;
  return Promise.race([run, guard]);
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
  try { JSON.stringify(input.content); } catch { return 'content is not serialisable as JSON'; }
  return holdsUnstorableText(input) ? 'text must not contain NUL characters or lone surrogates' : null;
}
