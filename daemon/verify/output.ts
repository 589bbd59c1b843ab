// What verify hands back, built from what the stages decided, on every outcome (a refused request
// still reports its structured fields' roles, and its trace what was masked): the masked text to
// forward, the per-field results, the content type and the per-attachment findings. Pure.
import type { ExtractedAttachment } from './attachments/index.js';
import { Redactor } from '../detectors/redact.js';
import { combine } from './stages/combine.js';
import type { Decision, Hit, Segment, VerifyRequest } from './stages/types.js';

export interface Shaped {
  /** The text to forward, when the decision lets anything through. */
  readonly output?: string;
  readonly modifiedFields?: Record<string, { role: 'routing' | 'content'; status: 'preserved' | 'masked' | 'unchanged'; value?: string }>;
  /** Which segments were masked, and with which placeholders (for the trace). */
  readonly masked: Record<string, number>;
}

/** Masks every REDACT finding of a maskable segment with one Redactor, so placeholders agree across texts. */
export function shapeOutput(
  req: VerifyRequest,
  segments: readonly Segment[],
  hits: readonly Hit[],
  decision: Decision,
  fieldRoles: Readonly<Record<string, string>> | null,
): Shaped {
  const forwards = decision === 'PASSED' || decision === 'FLAGGED' || decision === 'MODIFIED';
  const redactor = new Redactor();
  const maskedText = new Map<string, string>();
  const masked: Record<string, number> = {};
  for (const segment of segments) {
    if (!segment.maskable) continue;
    const findings = hits.filter((h) => h.segment.id === segment.id && h.effect === 'REDACT').flatMap((h) => h.findings);
    if (findings.length === 0) continue;
    const r = redactor.redact(segment.text, findings);
    maskedText.set(segment.id, r.text);
    masked[segment.id] = r.replacements.length;
  }
  let modifiedFields: Shaped['modifiedFields'];
  if (req.structured_input && fieldRoles) {
    modifiedFields = {};
    for (const [field, value] of Object.entries(req.structured_input.fields)) {
      const role = fieldRoles[field] === 'routing' ? 'routing' : 'content';
      const m = maskedText.get(`field:${field}`);
      const status = role === 'routing' ? 'preserved' : m !== undefined ? 'masked' : 'unchanged';
      modifiedFields[field] = { role, status, ...(forwards ? { value: m ?? value } : {}) };
    }
  }
  return {
    ...(forwards ? { output: maskedText.get('prompt') ?? req.prompt } : {}),
    ...(modifiedFields ? { modifiedFields } : {}),
    masked,
  };
}

/** The response's content_type: text without attachments, else their category (or mixed). */
export function contentTypeOf(attachments: readonly ExtractedAttachment[]): string {
  const categories = new Set(attachments.map((a) => a.category));
  if (categories.size === 0) return 'text';
  return categories.size === 1 ? [...categories][0]! : 'mixed';
}

/** Per-attachment findings for the response: facts and the attachment's own outcome, no entities or scores. */
export function attachmentFindings(attachments: readonly ExtractedAttachment[], hits: readonly Hit[]): Record<string, unknown>[] {
  return attachments.map((a) => {
    const own = hits.filter((h) => h.segment.attachmentIndex === a.index);
    const decision = own.length === 0 ? 'PASSED' : combine(own, 'api').decision;
    return {
      index: a.index,
      ...(a.name ? { name: a.name } : {}),
      content_type: a.mime,
      category: a.category,
      inspected: a.inspected,
      decision,
      ...(a.note ? { note: a.note } : {}),
    };
  });
}
