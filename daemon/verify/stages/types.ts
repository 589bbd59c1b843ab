// What verify's stages read and return. A stage is a pure function over a VerifyContext that
// load.ts filled in before the pipeline ran (the attachments already extracted): it does no I/O,
// so each one is testable on its own. A stage passes, adding what it found to the state the later
// stages see, or refuses: BLOCKED or PENDING_APPROVAL with the ruling that says why (nothing is
// forwarded, the trace still written), or validation_error for a bad attachment (400, nothing written).
import type { AgentStatus } from '../../agents/lifecycle.js';
import type { Refusal, Verdict } from '../../pipeline/verdict.js';
import type { Stage as PipelineStage } from '../../pipeline/runner.js';
import type { ExtractedAttachment } from '../attachments/index.js';
import type { Finding, TextOrigin } from '../../detectors/types.js';
import type { LoadedPolicy } from '../prompt-policies.js';

export type Decision = 'PASSED' | 'FLAGGED' | 'MODIFIED' | 'PENDING_APPROVAL' | 'BLOCKED';
export type Effect = 'BLOCK' | 'REDIRECT' | 'REQUIRE_APPROVAL' | 'REDACT' | 'JUSTIFY' | 'WARN' | 'FLAG';
export type EnforcementAction = 'BLOCK' | 'REDIRECT' | 'JUSTIFY' | 'WARN';

export interface VerifyRequest {
  readonly prompt: string;
  readonly metadata: Record<string, unknown>;
  readonly context?: Record<string, unknown>;
  readonly structured_input?: { readonly tool_name: string; readonly fields: Record<string, string> };
  readonly extracted_text?: string;
}

/** A piece of text the policies scan. Only the prompt and structured content fields can be masked. */
export interface Segment {
  readonly id: string;
  readonly origin: 'prompt' | 'attachment' | 'field' | 'extracted_text';
  readonly text: string;
  readonly maskable: boolean;
  readonly attachmentIndex?: number;
  readonly field?: string;
}

/**
 * A segment's origin as the detectors see it: attachments and extracted_text are data the model will
 * read; the prompt and structured_input fields (the caller's own arguments) are the user's words.
 * `context` is metadata about the caller (tool, server, chain depth), not scanned.
 */
export function textOrigin(segment: Pick<Segment, 'origin'>): TextOrigin {
  return segment.origin === 'attachment' || segment.origin === 'extracted_text' ? 'data' : 'prompt';
}

export interface Hit {
  readonly policy: LoadedPolicy;
  readonly segment: Segment;
  readonly effect: Effect;
  readonly findings: readonly Finding[];
}

/** What was decided and why: the decision, its reason, the policy that decided. */
export interface Ruling {
  readonly decision: Decision;
  /** Message catalog key and parameters of `reason`; null when nothing fired. */
  readonly reasonKey: string | null;
  readonly reasonParams: Record<string, string>;
  /** The policy that decided (the strictest hit), if any. */
  readonly policy: LoadedPolicy | null;
  readonly enforcementAction?: EnforcementAction;
  readonly actionConfig?: Record<string, unknown>;
  readonly errorClass?: string;
  /** The machine-readable cause for refusals that are not a policy (agent gate). */
  readonly code?: string;
}

/** What extracting the attachments came to (load.ts, in worker threads, before the stages). */
export type Extraction = Verdict<readonly ExtractedAttachment[], Refusal<'attachment_extraction_timeout'> | BadRequest>;

/**
 * What the optional ONNX injection model (load.ts) made of each segment, by segment id; a model that
 * failed or ran past the detector budget is an error class the policies stage blocks with.
 */
export type ModelScores =
  | { readonly ok: true; readonly bySegment: ReadonlyMap<string, number> }
  | { readonly ok: false; readonly errorClass: 'detector_error' | 'detector_timeout'; readonly detail: string };

/** Everything the stages may look at, loaded once per request (load.ts). */
export interface VerifyContext {
  readonly request: VerifyRequest;
  readonly source: 'api' | 'browser';
  readonly environment: string;
  /** The registered agent metadata.agent_id names; null when absent or unknown (anonymous). */
  readonly agent: { readonly id: string; readonly status: AgentStatus } | null;
  readonly policies: readonly LoadedPolicy[];
  /** The field roles of structured_input's tool; null when the tool is not in the registry. */
  readonly fieldRoles: Readonly<Record<string, string>> | null;
  readonly extraction: Extraction;
  readonly detectorBudgetMs: number;
  /** Absent when no ONNX model is configured, or no injection policy that consults it applies. */
  readonly modelScores?: ModelScores;
  /** The request's canonical hash: what an approval is bound to, and kept on the trace. */
  readonly requestHash: string;
  readonly auditLevel: string;
  readonly attestation: boolean;
}

/** What the passing stages found, handed on to the later ones and to the answer. */
export interface VerifyState {
  readonly attachments: readonly ExtractedAttachment[];
  readonly segments: readonly Segment[];
  readonly hits: readonly Hit[];
  readonly ruling: Ruling;
}

/** A decision that forwards nothing; `hits` are what the policies found before a fail-closed stop. */
export interface Stopped {
  readonly ruling: Ruling;
  readonly hits?: readonly Hit[];
}

export interface NotForwarded extends Refusal<'BLOCKED' | 'PENDING_APPROVAL', Stopped> {
  readonly detail: Stopped;
}

/** The client's own error (an attachment too large or undecodable): 400 with this message. */
export interface BadRequest extends Refusal<'validation_error', string> {
  readonly detail: string;
}

export type VerifyRefusal = NotForwarded | BadRequest;

export type Stage = PipelineStage<VerifyContext, VerifyState, VerifyRefusal>;

/** Ends the run with `ruling`, whose decision is BLOCKED or PENDING_APPROVAL. */
export const stop = (ruling: Ruling, hits?: readonly Hit[]): NotForwarded => ({
  ok: false,
  code: ruling.decision === 'PENDING_APPROVAL' ? 'PENDING_APPROVAL' : 'BLOCKED',
  detail: { ruling, ...(hits ? { hits } : {}) },
});

export const blocked = (reasonKey: string, params: Record<string, string>, extra: Partial<Ruling> = {}): Ruling => ({
  decision: 'BLOCKED',
  reasonKey,
  reasonParams: params,
  policy: null,
  ...extra,
});

/** A check that could not run blocks (fail closed), with its error class. */
export const failClosed = (errorClass: string, policy: LoadedPolicy | null): Ruling =>
  blocked('reason.fail_closed', { error_class: errorClass }, { policy, errorClass });
