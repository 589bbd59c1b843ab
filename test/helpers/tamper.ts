// Rewrites a stored trace as the database owner could, behind the append-only trigger's back, so
// the ledger's checks can be shown to catch it.
import type postgres from 'postgres';
import { headerOfRow } from '../../daemon/ledger/streams.js';
import { entryHash } from '../../shared/ledger-hash.js';

/**
 * Sets the reason of trace `seq` in project default to 'rewritten'; with `rehash`, also stores the
 * integrity hash of the rewritten row, so only the chain and the proofs can tell.
 */
export async function tamper(db: postgres.Sql, seq: number, rehash: boolean): Promise<void> {
  await db.begin(async (tx) => {
    await tx`alter table traces disable trigger traces_append_only`;
    await tx`update traces set reason = 'rewritten' where project_id = 'default' and sequence_num = ${seq}`;
    if (rehash) {
      const [row] = await tx`select * from traces where project_id = 'default' and sequence_num = ${seq}`;
      await tx`update traces set integrity_hash = ${entryHash(headerOfRow(row!))} where project_id = 'default' and sequence_num = ${seq}`;
    }
    await tx`alter table traces enable trigger traces_append_only`;
  });
}
