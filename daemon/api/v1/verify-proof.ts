// /api/v1/verify-proof: check one trace against the latest signed checkpoint with its Merkle proof
// (any role). The spec's name; the ledger's own module is check-proof.
import { GatewayError } from '../../../shared/errors.js';
import { verifyProofBody } from '../../../shared/trace-schemas.js';
import type { Deps } from '../../deps.js';
import { defineRoute, type Route } from '../../http/types.js';
import { checkProof } from '../../ledger/check-proof.js';

export function verifyProofRoutes(deps: Deps): Route[] {
  return [
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
  ];
}
