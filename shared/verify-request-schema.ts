// The body of POST /api/v1/verify, shared by the daemon and gatewayctl. Unknown top-level keys are
// dropped, not refused: the specification says a top-level agent_id is ignored (attribution is
// metadata.agent_id only), and clients of older versions send other extras.
import { z } from 'zod';
import { attachmentSchema } from './verify-schemas.js';

const fieldValue = z.union([z.string(), z.number(), z.boolean()]).transform((v) => String(v));

export const verifyRequestBody = z.object({
  prompt: z.string().max(1_000_000),
  metadata: z.record(z.string(), z.unknown()).optional(),
  attachments: z.array(attachmentSchema).max(10).optional(),
  context: z.record(z.string(), z.unknown()).optional(),
  structured_input: z
    .object({
      tool_name: z.string().trim().min(1).max(200),
      fields: z
        .record(z.string().min(1).max(200), fieldValue)
        .refine((f) => Object.keys(f).length <= 200, { message: 'at most 200 fields' }),
    })
    .strict()
    .optional(),
  extracted_text: z.string().max(1_000_000).optional(),
});
export type VerifyBody = z.output<typeof verifyRequestBody>;
