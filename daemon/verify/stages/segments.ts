// Stage 3: the texts the policies scan: the prompt; each inspected attachment; structured input
// fields whose role is content (all fields when the tool is not in the field-role registry: nothing
// unknown is assumed to be routing); the legacy extracted_text.
import type { ExtractedAttachment } from '../attachments/index.js';
import { pass } from '../../pipeline/verdict.js';
import type { Segment, Stage, VerifyRequest } from './types.js';

export function segmentsOf(
  req: VerifyRequest,
  attachments: readonly ExtractedAttachment[],
  fieldRoles: Readonly<Record<string, string>> | null,
): Segment[] {
  const out: Segment[] = [{ id: 'prompt', origin: 'prompt', text: req.prompt, maskable: true }];
  for (const a of attachments) {
    if (a.inspected && a.text !== null)
      out.push({ id: `attachment:${a.index}`, origin: 'attachment', text: a.text, maskable: false, attachmentIndex: a.index });
  }
  for (const [field, value] of Object.entries(req.structured_input?.fields ?? {})) {
    if (fieldRoles?.[field] === 'routing') continue;
    out.push({ id: `field:${field}`, origin: 'field', text: value, maskable: true, field });
  }
  if (req.extracted_text) out.push({ id: 'extracted_text', origin: 'extracted_text', text: req.extracted_text, maskable: false });
  return out;
}

export const segmentsStage: Stage = {
  name: 'segments',
  run(ctx, state) {
    return pass({ segments: segmentsOf(ctx.request, state.attachments!, ctx.fieldRoles) });
  },
};
