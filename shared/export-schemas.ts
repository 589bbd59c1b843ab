// zod schema of the CSV export query, shared by the daemon and gatewayctl.
import { z } from 'zod';
import { DECISIONS, TIME_RANGES } from './trace-schemas.js';

export const exportQuery = z.object({
  format: z.literal('csv').default('csv'),
  decision: z.enum(DECISIONS).optional(),
  time_range: z.enum(TIME_RANGES).optional(),
});
