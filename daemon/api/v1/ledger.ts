// /api/v1/ledger: re-check a whole chain (Admin; verify-chain is its old name: "verify" is the
// prompt check's word), and the latest signed checkpoint (any role).
import { z } from 'zod';
import { verifierKey } from '../../../shared/signed-note.js';
import { defineRoute, type Route } from '../../http/types.js';
import { latestCheckpoint } from '../../ledger/checkpoints.js';
import { checkChain } from '../../ledger/check-chain.js';
import type { Deps } from '../../deps.js';

const chainQuery = z.object({ stream: z.enum(['traces', 'admin']).default('traces') });

export function ledgerRoutes(deps: Deps): Route[] {
  return [
    ...(['/api/v1/ledger/check-chain', '/api/v1/ledger/verify-chain'] as const).map((path) =>
      defineRoute({
        method: 'GET',
        path,
        summary: 'Check the hash chain of a ledger stream',
        ...(path.endsWith('verify-chain')
          ? { deprecated: true, description: 'The old name of GET /api/v1/ledger/check-chain, kept for scripts that use it.' }
          : {}),
        auth: 'admin',
        query: chainQuery,
        async handler(r) {
          const { query: q } = r;
          return { status: 200, body: await checkChain(deps.sql, r.principal.projectId, q.stream) };
        },
      }),
    ),
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
  ];
}
