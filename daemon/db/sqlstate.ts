// PostgreSQL errors mapped by SQLSTATE, in one place. Never by message text.

export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  checkViolation: '23514',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  ledgerAppendOnly: 'GW001',
} as const;

export function sqlState(err: unknown): string | undefined {
  if (err && typeof err === 'object' && 'code' in err && typeof (err as { code: unknown }).code === 'string') {
    return (err as { code: string }).code;
  }
  return undefined;
}

/** True for errors that mean the database cannot be reached at all (connection refused, reset, timeout). */
export function isConnectionError(err: unknown): boolean {
  const code = sqlState(err);
  if (!code) return false;
  return ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'CONNECTION_CLOSED', 'CONNECTION_ENDED',
    'CONNECTION_DESTROYED', 'CONNECT_TIMEOUT', '57P01', '57P02', '57P03', '08006', '08001', '08003'].includes(code);
}
