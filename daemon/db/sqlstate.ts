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

// Whether an error means the database could not be reached at all is decided in one place: unreachable.ts.
