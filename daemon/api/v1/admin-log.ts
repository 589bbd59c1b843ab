// /api/v1/admin-log: who changed what, in sequence order (Admin), optionally as OCSF events for a SIEM.
import { z } from 'zod';
import type { Deps } from '../../deps.js';
import { defineRoute, type Route } from '../../http/types.js';
import { readAdminLog } from '../../project/admin-actions.js';

const adminLogQuery = z.object({
  format: z.enum(['json', 'ocsf']).default('json'),
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});

export function adminLogRoutes(deps: Deps): Route[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/api/v1/admin-log',
      summary: 'The admin log: who changed what',
      auth: 'admin',
      query: adminLogQuery,
      async handler(r) {
        return { status: 200, body: { entries: await readAdminLog(deps.sql, r.principal.projectId, r.query) } };
      },
    }),
  ];
}
