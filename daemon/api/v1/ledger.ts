// Ledger reads for operators: re-verify a whole chain, and read the admin-action log (optionally
// as OCSF events for a SIEM).
import { z } from 'zod';
import { verifyProofBody } from '../../../shared/trace-schemas.js';
import { verifierKey } from '../../../shared/signed-note.js';
import { GatewayError } from '../../../shared/errors.js';
import { defineRoute, type Route } from '../../http/types.js';
import { latestCheckpoint } from '../../ledger/checkpoints.js';
import { checkChain } from '../../ledger/check-chain.js';
import { checkProof } from '../../ledger/check-proof.js';
import { toOcsf } from '../../project/admin-actions.js';
import type { Deps } from '../../deps.js';

const chainQuery = z.object({ stream: z.enum(['traces', 'admin']).default('traces') });
const adminLogQuery = z.object({
  format: z.enum(['json', 'ocsf']).default('json'),
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export function ledgerRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/ledger/verify-chain',
      summary: 'Check the hash chain of a ledger stream',
      auth: 'admin',
      query: chainQuery,
      async handler(r) {
        const { query: q } = r;
        return { status: 200, body: await checkChain(deps.sql, r.principal.projectId, q.stream) };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/api/v1/verify-proof',
      summary: 'Check a trace against the signed checkpoint (Merkle proof)',
      auth: 'viewer',
      body: verifyProofBody,
      async handler(r) {
        const { body } = r;
        const report = await checkProof(deps.sql, deps.checkpointKey, r.principal.projectId, body.trace_id);
        if (!report) throw new GatewayError('not_found');
        return { status: 200, body: report };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/ledger/checkpoint',
      summary: 'The latest signed checkpoint',
      auth: 'viewer',
      async handler(r) {
        const cp = await latestCheckpoint(deps.sql, r.principal.projectId);
        return {
          status: 200,
          body: {
            vkey: verifierKey(deps.checkpointKey),
            checkpoint: cp && {
              tree_size: cp.tree_size,
              root: cp.root.toString('base64'),
              note: cp.note,
              created_at: cp.created_at.toISOString(),
            },
          },
        };
      },
    },
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin-log',
      summary: 'The admin log: who changed what',
      auth: 'admin',
      query: adminLogQuery,
      async handler(r) {
        const { query: q } = r;
        const rows = await deps.sql<Record<string, unknown>[]>`
          select * from admin_log where project_id = ${r.principal.projectId} and sequence_num > ${q.after}
          order by sequence_num limit ${q.limit}`;
        const entries = rows.map((row) =>
          q.format === 'ocsf'
            ? toOcsf(row)
            : {
                ...row,
                sequence_num: Number(row.sequence_num),
                created_at: (row.created_at as Date).toISOString(),
              },
        );
        return { status: 200, body: { entries } };
      },
    }),
  ];
}
