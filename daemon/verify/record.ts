// The trace of a verify decision (traceType VERIFY), built as data: what was transmitted (masked
// at rest whatever the policies did, traces/at-rest.ts), the findings of every policy that fired,
// why a refusal refused, the request hash an approval is bound to, and (only at audit level full)
// the sealed raw original.
import type { Subject } from '../../shared/credentials.js';
import type { SealedRaw } from '../crypto/raw-keys.js';
import type { TraceInput } from '../ledger/streams.js';
import { DisplayMask } from '../traces/at-rest.js';
import type { ExtractedAttachment } from './attachments/index.js';
import type { Shaped } from './output.js';
import type { Hit, Ruling, VerifyContext } from './stages/types.js';

/** What the stages decided, however far they got: the ruling, and what was read and found on the way. */
export interface Decided {
  readonly ruling: Ruling;
  readonly attachments: readonly ExtractedAttachment[];
  readonly hits: readonly Hit[];
  readonly shaped: Shaped;
  /** Per-attachment findings of a request with attachments. */
  readonly findings?: Record<string, unknown>[];
}

export interface VerifyFacts {
  readonly traceId: string;
  /** The reason in English: the trace keeps it whatever language the answer speaks. */
  readonly reason: string | null;
  readonly raw?: SealedRaw;
  /** Who the identity provider says asked, when an access token did (as MCP call traces keep it). */
  readonly subject?: Subject;
}

function findingsOnTrace(hits: readonly Hit[]): Record<string, unknown>[] {
  return hits.map((h) => ({
    policy_id: h.policy.id,
    policy: h.policy.name,
    detector: h.policy.detector,
    action: h.policy.action,
    effect: h.effect,
    segment: h.segment.id,
    findings: h.findings.map((f) => ({
      entity: f.entity,
      score: f.score,
      ...(f.rule ? { rule: f.rule } : {}),
      start: f.start,
      end: f.end,
    })),
  }));
}

/** The text taken from attachments and the legacy extracted_text, as one. */
export function extractedText(ctx: VerifyContext, attachments: readonly ExtractedAttachment[]): string {
  return [
    ...attachments.filter((a) => a.text !== null).map((a) => a.text!),
    ...(ctx.request.extracted_text ? [ctx.request.extracted_text] : []),
  ].join('\n\n');
}

export function verifyTrace(ctx: VerifyContext, d: Decided, facts: VerifyFacts): TraceInput & { readonly id: string } {
  const { ruling, shaped } = d;
  const transmitted = shaped.output !== undefined;
  const extracted = extractedText(ctx, d.attachments);
  const mask = new DisplayMask();
  return {
    id: facts.traceId,
    traceType: 'VERIFY',
    decision: ruling.decision,
    reason: facts.reason,
    actionName: ctx.source === 'browser' ? 'browser.verify' : 'verify',
    environment: ctx.environment,
    agentId: ctx.agent?.id ?? null,
    content: {
      display: transmitted ? mask.text(shaped.output ?? '') : '',
      extracted_text: transmitted && ruling.decision !== 'MODIFIED' && extracted !== '' ? mask.text(extracted) : null,
      metadata: mask.value(ctx.request.metadata),
      ...(ctx.request.context ? { context: mask.value(ctx.request.context) } : {}),
      details: {
        source: ctx.source,
        policies: findingsOnTrace(d.hits),
        ...(ruling.code ? { refusal: ruling.code } : {}),
        ...(ruling.errorClass ? { error_class: ruling.errorClass, failed_policy: ruling.policy?.id } : {}),
        ...(d.findings ? { attachments: d.findings } : {}),
        ...(shaped.modifiedFields
          ? {
              modified_fields: Object.fromEntries(
                Object.entries(shaped.modifiedFields).map(([k, v]) => [k, { role: v.role, status: v.status }]),
              ),
            }
          : {}),
        ...(ruling.enforcementAction ? { enforcement_action: ruling.enforcementAction } : {}),
        masked: shaped.masked,
        request_hash: ctx.requestHash,
      },
      ...(facts.raw ? { raw: facts.raw } : {}),
      ...(facts.subject ? { subject: storableSubject(facts.subject) } : {}),
    },
  };
}

/** PostgreSQL text cannot hold NUL: a stored subject shows it as U+FFFD (the hash covers the original). */
function storableSubject(s: Subject): Subject {
  const clean = (v: string) => v.replaceAll('\u0000', '\ufffd');
  return { issuer: clean(s.issuer), sub: clean(s.sub), name: clean(s.name) };
}
