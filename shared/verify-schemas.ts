// zod schemas of the verify request, shared by the daemon and gatewayctl.
import { z } from 'zod';

/**
 * One element of `attachments`. `data` is base64 (standard or URL-safe alphabet, whitespace
 * tolerated); its decoded size and content are checked by daemon/verify/attachments/index.ts, which
 * sniffs the real type from the bytes. `content_type` is what the client claims: recorded, never
 * trusted.
 */
export const attachmentSchema = z
  .object({
    name: z.string().max(255).optional(),
    content_type: z.string().max(255).optional(),
    data: z.string().min(1),
  })
  .strict();
