// A trace's flare_status / flare_tx_hash, derived for a page of traces with one coverage query:
// ANCHORED and the transaction when an anchored epoch covers it (coverage.ts); else PENDING while
// the project's attestation is on; else both null (anchoring is not active for the trace).
import type { Sql } from '../db/connect.js';
import { anchorsCovering } from './coverage.js';

export interface FlareFields {
  readonly flare_status: 'PENDING' | 'ANCHORED' | null;
  readonly flare_tx_hash: string | null;
}

export const NOT_ANCHORING: FlareFields = Object.freeze({ flare_status: null, flare_tx_hash: null });
const PENDING: FlareFields = Object.freeze({ flare_status: 'PENDING', flare_tx_hash: null });

/** The flare fields of the traces of one project with these sequence numbers. */
export async function flareFieldsOf(
  sql: Sql,
  projectId: string,
  sequenceNums: readonly number[],
): Promise<(sequenceNum: number) => FlareFields> {
  if (sequenceNums.length === 0) return () => NOT_ANCHORING;
  const [[project], covered] = await Promise.all([
    sql<{ attestation_enabled: boolean }[]>`select attestation_enabled from projects where id = ${projectId}`,
    anchorsCovering(sql, projectId, sequenceNums),
  ]);
  const fallback = project?.attestation_enabled ? PENDING : NOT_ANCHORING;
  return (seq) => {
    const c = covered.get(seq);
    return c ? { flare_status: 'ANCHORED', flare_tx_hash: c.txHash } : fallback;
  };
}
