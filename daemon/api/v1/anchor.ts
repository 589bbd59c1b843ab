// Ledger anchoring for operators: the worker's status (any role) and one cycle on demand (Admin).
// Run-now waits for a cycle another daemon may be running, then runs its own.
import { GatewayError } from '../../../shared/errors.js';
import type { AnchorService } from '../../anchor/service.js';
import { anchorStatus } from '../../anchor/status.js';
import type { Route } from '../../http/types.js';
import type { Deps } from '../../deps.js';

export function anchorRoutes(deps: Deps, anchor: AnchorService): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/v1/ledger/anchor',
      summary: 'Ledger anchoring status',
      auth: 'viewer',
      async handler() {
        return { status: 200, body: await anchorStatus(deps.sql, anchor.settings) };
      },
    },
    {
      method: 'POST',
      path: '/api/v1/ledger/anchor/run',
      summary: 'Anchor the ledger now',
      auth: 'admin',
      async handler() {
        if (!anchor.settings) throw new GatewayError('anchoring_not_configured');
        return { status: 200, body: await anchor.runNow() };
      },
    },
  ];
}
