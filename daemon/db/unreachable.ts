// The database going away: which errors mean PostgreSQL could not be reached (by error code, never
// by message text), and a transaction that survives the connection dying inside it. Degraded mode
// (the dead-letter queue, deciding from the state last read) is built on these two answers.
import { sqlState } from './sqlstate.js';
import type { Sql, Tx } from './connect.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
]);
// GATEWAY_DATABASE_DOWN: refused without a connection attempt while known down (db/availability.ts).
const DRIVER_CODES = new Set(['CONNECTION_CLOSED', 'CONNECTION_ENDED', 'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', 'GATEWAY_DATABASE_DOWN']);
/**
 * Refusals of a new connection, sent as FATAL during its start-up: the database closed to
 * connections (55000, `ALTER DATABASE ... ALLOW_CONNECTIONS false`; the same code is an ordinary
 * ERROR for other things, hence FATAL only) and no connection slot left (53300, `CONNECTION LIMIT`,
 * max_connections).
 */
const CONNECT_REFUSALS = new Set(['55000', '53300']);

function severityOf(err: unknown): unknown {
  return err && typeof err === 'object' && 'severity' in err ? (err as { severity: unknown }).severity : undefined;
}

/**
 * True when PostgreSQL could not be reached or went away (socket errors, postgres.js connection
 * codes, SQLSTATE class 08, 57P0x shutdown/crash/starting up, a connection refused at start-up):
 * the only errors that send a trace to the dead-letter queue and let verify and the proxy decide
 * from the state last read. Anything else (constraint, bad input) is a fault the caller must see.
 */
export function isDatabaseUnreachable(err: unknown): boolean {
  if (err instanceof AggregateError && err.errors.length > 0) return err.errors.every(isDatabaseUnreachable);
  const code = sqlState(err);
  if (!code) return false;
  if (CONNECT_REFUSALS.has(code)) return severityOf(err) === 'FATAL';
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
  const guard = new Promise<never>((_, reject) => {
    cut = reject;
  });
  const run = sql.begin((tx) =>
    fn(tx).catch((err: unknown) => {
      if (!isDatabaseUnreachable(err)) throw err;
      setTimeout(() => cut(err), DEAD_TRANSACTION_MS).unref();
      return new Promise<T>(() => {});
    }),
  ) as Promise<T>;
  return Promise.race([run, guard]);
}
