// zod schemas of the trace endpoints, shared by the daemon and gatewayctl.
import { z } from 'zod';

export const DECISIONS = ['PASSED', 'FLAGGED', 'BLOCKED', 'MODIFIED', 'PENDING_APPROVAL', 'POLICY_CHANGE', 'ALLOWED', 'ERROR'] as const;
export const TIME_RANGES = ['24h', '7d', '30d', 'all'] as const;

export const traceListQuery = z.object({
  time_range: z.enum(TIME_RANGES).optional(),
  since: z.iso.datetime({ offset: true }).optional(),
  until: z.iso.datetime({ offset: true }).optional(),
  decision: z.enum(DECISIONS).optional(),
  agent_id: z.string().min(1).max(200).optional(),
  environment: z.string().min(1).max(100).optional(),
  env: z.string().min(1).max(100).optional(),
  id: z.string().min(1).max(100).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
  offset: z.coerce.number().int().min(0).max(10_000_000).default(0),
});

export const traceActionBody = z
  .object({
    action: z.enum(['WARN_PROCEEDED', 'JUSTIFIED']),
    justification: z.string().trim().max(5000).optional(),
  })
  .strict()
  .refine((b) => b.action !== 'JUSTIFIED' || (b.justification?.length ?? 0) >= 10, {
    message: 'JUSTIFIED needs a justification of at least 10 characters',
    path: ['justification'],
  });

export const verifyProofBody = z
  .object({
    trace_id: z.uuid(),
  })
  .strict();

/** The answer of GET /api/v1/ledger/check-chain (and its old name verify-chain): whether one stream's chain holds, and where it first breaks. */
export interface ChainReport {
  readonly stream: 'traces' | 'admin';
  readonly intact: boolean;
  readonly checked: number;
  readonly head: string;
  readonly first_broken: { sequence_num: number; id: string | null; reason: string } | null;
}
