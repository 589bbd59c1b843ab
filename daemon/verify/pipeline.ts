// POST /api/v1/verify: the specification's checks as an array, the first refusing stage answering.
// Every stage is pure over the context load.ts filled in, and returns the one verdict type
// (daemon/pipeline/verdict.ts); the runner is the MCP proxy's (daemon/pipeline/runner.ts).
//
//   load         (load.ts) the project's settings, the named agent, the field roles, the policies
//                (as last read while the database is unreachable); then the attachments' text,
//                extracted in worker threads under a deadline, and the optional ONNX injection
//                model's scores of the segments' texts. Extraction is asynchronous CPU work,
//                so it is part of loading, not a stage: it runs for every request, and what came of
//                it is data the attachments stage decides on in its place in the order
//   agent        a named agent that may not act is BLOCKED with its lifecycle reason
//   attachments  an extraction past its deadline is BLOCKED (fail closed); a bad attachment is 400
//   segments     the texts to scan: prompt, inspected attachments, content fields, extracted_text
//   policies     the policies for this source and environment run their detectors; a detector that
//                fails or overruns its budget, or a configuration that no longer parses, BLOCKS
//   combine      strictest wins: BLOCKED > PENDING_APPROVAL > MODIFIED > FLAGGED > PASSED; BLOCKED
//                and PENDING_APPROVAL forward nothing and end the run
//   uninspected  an attachment not (fully) read turns a PASSED into FLAGGED
//   output       on every outcome: the masked text and fields to forward, the per-attachment findings
//   record       the trace, durably; a held request's approval in the same transaction (a held
//                request needs the database: while it is unreachable, 503 and nothing written)
//   answer       the decision's status; optional fields left out when they do not apply
//
// The project emergency stop is enforced before any of this, by authentication (a project key is
// refused while it is active).
import { GatewayError } from '../../shared/errors.js';
import type { Subject } from '../../shared/credentials.js';
import type { VerifyBody } from '../../shared/verify-request-schema.js';
import type { Deps } from '../deps.js';
import { holdRequest } from '../approvals/held-call.js';
import type { TraceInput } from '../ledger/streams.js';
import type { TraceWritten } from '../ledger/trace-written.js';
import { runStages, type Outcome } from '../pipeline/runner.js';
import { sealedOriginal } from '../traces/at-rest.js';
import { loadVerifyContext } from './load.js';
import { message, type Locale } from './messages.js';
import { attachmentFindings, contentTypeOf, shapeOutput } from './output.js';
import { verifyTrace, type Decided } from './record.js';
import { agentStage } from './stages/agent.js';
import { attachmentsStage } from './stages/attachments.js';
import { combineStage } from './stages/combine.js';
import { policiesStage } from './stages/detection.js';
import { segmentsStage } from './stages/segments.js';
import type { Stage, VerifyContext, VerifyRefusal, VerifyState } from './stages/types.js';
import { uninspectedStage } from './stages/uninspected.js';

export const VERIFY_STAGES: readonly Stage[] = Object.freeze([
  agentStage,
  attachmentsStage,
  segmentsStage,
  policiesStage,
  combineStage,
  uninspectedStage,
]);

export interface VerifyOutcome {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly written: TraceWritten;
}

const STATUS: Record<string, number> = { PASSED: 200, FLAGGED: 200, MODIFIED: 200, PENDING_APPROVAL: 202, BLOCKED: 403 };

/** Who asks: the credential (an API key, or an access token's subject id) and, for a token, its subject. */
export interface VerifyCaller {
  readonly credentialId: string;
  readonly subject?: Subject;
}

export async function runVerify(
  deps: Deps,
  projectId: string,
  caller: VerifyCaller,
  body: VerifyBody,
  locale: Locale,
): Promise<VerifyOutcome> {
  const ctx = await loadVerifyContext(deps.sql, projectId, body, deps.config.detectorBudgetMs, deps.injectionModel);
  if (ctx.modelScores?.ok === false)
    deps.log.warn({ errorClass: ctx.modelScores.errorClass, detail: ctx.modelScores.detail }, 'injection model failed: request blocked');
  if (ctx.agent) deps.activity.record(projectId, ctx.agent.id);
  const run = runStages(VERIFY_STAGES, ctx);
  if (run.kind === 'refuse' && run.refusal.code === 'validation_error') throw new GatewayError('validation_error', run.refusal.detail);
  const d = decided(ctx, run);
  const trace = verifyTrace(ctx, d, {
    traceId: crypto.randomUUID(),
    reason: d.ruling.reasonKey ? message('en', d.ruling.reasonKey, d.ruling.reasonParams) : null,
    raw: await sealedOriginal(deps.sql, deps.secretBox, projectId, original(ctx, d), ctx.auditLevel),
    ...(caller.subject ? { subject: caller.subject } : {}),
  });
  const written = await record(deps, projectId, caller.credentialId, ctx, d, trace);
  return { status: STATUS[d.ruling.decision]!, body: answer(ctx, d, written, locale), written };
}

/** The ruling, from the refusal or the last stage, and the answer's content built from it. */
function decided(ctx: VerifyContext, run: Outcome<VerifyState, VerifyRefusal>): Decided {
  const stopped = run.kind === 'refuse' && run.refusal.code !== 'validation_error' ? run.refusal.detail : null;
  const ruling = stopped?.ruling ?? run.state.ruling!;
  const attachments = run.state.attachments ?? [];
  const hits = stopped?.hits ?? run.state.hits ?? [];
  // Refused before the segments stage, nothing was scanned, so nothing can be masked.
  const shaped = shapeOutput(ctx.request, run.state.segments ?? [], hits, ruling.decision, ctx.fieldRoles);
  return { ruling, attachments, hits, shaped, ...(attachments.length > 0 ? { findings: attachmentFindings(attachments, hits) } : {}) };
}

/** What the trace keeps sealed at audit level full: the request and the text taken from its attachments. */
function original(ctx: VerifyContext, d: Decided): Record<string, unknown> {
  const { prompt, structured_input, extracted_text } = ctx.request;
  const attachments = d.attachments.map((a) => ({ name: a.name, mime: a.mime, text: a.text }));
  return { prompt, structured_input: structured_input ?? null, extracted_text: extracted_text ?? null, attachments };
}

/**
 * Into the ledger, or the dead-letter queue while the database is down. A held request's approval,
 * bound to the request hash and found by its trace id (GET /approvals/status?trace_id=), is created
 * in the trace's own transaction, as the proxy holds a call: no PENDING_APPROVAL record nobody
 * could decide, no approval without its record.
 */
async function record(
  deps: Deps,
  projectId: string,
  credentialId: string,
  ctx: VerifyContext,
  d: Decided,
  trace: TraceInput & { readonly id: string },
): Promise<TraceWritten> {
  if (d.ruling.decision !== 'PENDING_APPROVAL') return deps.writer.appendOrQueue(projectId, trace);
  const held = await holdRequest(
    deps.sql,
    projectId,
    {
      kind: 'verify',
      traceId: trace.id,
      agentId: ctx.agent?.id ?? null,
      credentialId,
      argumentsHash: ctx.requestHash,
      ttlSeconds: deps.config.approvalTtlSeconds,
    },
    () => trace,
  );
  return { ...held.appended, persisted: 'db', degradedSubsystems: deps.writer.degradedSubsystems() };
}

function answer(ctx: VerifyContext, d: Decided, written: TraceWritten, locale: Locale): Record<string, unknown> {
  const { ruling, shaped } = d;
  const reason = ruling.reasonKey ? message(locale, ruling.reasonKey, ruling.reasonParams) : null;
  return {
    decision: ruling.decision,
    ...(shaped.output !== undefined ? { output: shaped.output } : {}),
    ...(reason ? { reason } : {}),
    trace_id: written.id,
    ...(written.integrityHash !== null ? { integrity_hash: written.integrityHash, sequence_num: written.sequenceNum } : {}),
    // Every decision qualifies while the project's attestation is on; a fresh trace is never anchored yet.
    should_anchor: ctx.attestation,
    ...(ctx.attestation ? { flare_status: 'PENDING' } : {}),
    content_type: contentTypeOf(d.attachments),
    ...(d.findings ? { findings: d.findings } : {}),
    ...(ruling.enforcementAction ? { enforcement_action: ruling.enforcementAction } : {}),
    ...(ruling.enforcementAction && ruling.actionConfig ? { action_config: ruling.actionConfig } : {}),
    ...(ruling.errorClass ? { error_class: ruling.errorClass } : {}),
    ...(shaped.modifiedFields ? { modified_fields: shaped.modifiedFields } : {}),
  };
}
