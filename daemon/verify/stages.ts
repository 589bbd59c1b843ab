// The pure stages of the verify pipeline. Each reads what the route loaded for it and returns a
// value; none does I/O. pipeline.ts runs them in order.
import type { AgentStatus } from '../agents/lifecycle.js';
import { agentGate } from '../agents/gate.js';
import type { ExtractedAttachment } from './attachments.js';
import { DETECTORS } from './detectors/index.js';
import { injectionLevel, type InjectionConfig } from './detectors/injection.js';
import type { Finding } from './detectors/types.js';
import type { LoadedPolicy } from './policies.js';
import { Redactor } from './redact.js';

export type Decision = 'PASSED' | 'FLAGGED' | 'MODIFIED' | 'PENDING_APPROVAL' | 'BLOCKED';
export type Effect = 'BLOCK' | 'REDIRECT' | 'REQUIRE_APPROVAL' | 'REDACT' | 'JUSTIFY' | 'WARN' | 'FLAG';
export type EnforcementAction = 'BLOCK' | 'REDIRECT' | 'JUSTIFY' | 'WARN';

/** Strictest first: the combined verdict is the first of these that any policy produced. */
export const DECISION_ORDER: readonly Decision[] = ['BLOCKED', 'PENDING_APPROVAL', 'MODIFIED', 'FLAGGED', 'PASSED'];
const EFFECT_RANK: Record<Effect, number> = { BLOCK: 7, REDIRECT: 6, REQUIRE_APPROVAL: 5, REDACT: 4, JUSTIFY: 3, WARN: 2, FLAG: 1 };
const EFFECT_DECISION: Record<Effect, Decision> = {
  BLOCK: 'BLOCKED', REDIRECT: 'BLOCKED', REQUIRE_APPROVAL: 'PENDING_APPROVAL', REDACT: 'MODIFIED', JUSTIFY: 'FLAGGED', WARN: 'FLAGGED', FLAG: 'FLAGGED',
};

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

export interface Hit {
  readonly policy: LoadedPolicy;
  readonly segment: Segment;
  readonly effect: Effect;
  readonly findings: readonly Finding[];
}

export interface Verdict {
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

const blocked = (reasonKey: string, params: Record<string, string>, extra: Partial<Verdict> = {}): Verdict =>
  ({ decision: 'BLOCKED', reasonKey, reasonParams: params, policy: null, ...extra });

// ---- stage: agent gate ----------------------------------------------------------------------

/** Only ACTIVE agents act; an id naming no agent is anonymous traffic. */
export function gateAgent(agentStatus: AgentStatus | null): Verdict | null {
  const gate = agentGate(agentStatus);
  return gate.ok ? null : blocked(`reason.${gate.reason}`, {}, { code: gate.reason });
}

// ---- stage: segments ------------------------------------------------------------------------

/**
 * The texts to scan: the prompt; each inspected attachment; structured input fields whose role
 * is content (all fields when the tool is not in the field-role registry: nothing unknown is
 * assumed to be routing); the legacy extracted_text.
 */
export function segmentsOf(req: VerifyRequest, attachments: readonly ExtractedAttachment[], fieldRoles: Readonly<Record<string, string>> | null): Segment[] {
  const out: Segment[] = [{ id: 'prompt', origin: 'prompt', text: req.prompt, maskable: true }];
  for (const a of attachments) {
    if (a.inspected && a.text !== null) out.push({ id: `attachment:${a.index}`, origin: 'attachment', text: a.text, maskable: false, attachmentIndex: a.index });
  }
  for (const [field, value] of Object.entries(req.structured_input?.fields ?? {})) {
    if (fieldRoles?.[field] === 'routing') continue;
    out.push({ id: `field:${field}`, origin: 'field', text: value, maskable: true, field });
  }
  if (req.extracted_text) out.push({ id: 'extracted_text', origin: 'extracted_text', text: req.extracted_text, maskable: false });
  return out;
}

// ---- stage: policies ------------------------------------------------------------------------

export function applicable(policies: readonly LoadedPolicy[], source: 'api' | 'browser', environment: string): LoadedPolicy[] {
  return policies.filter((p) => p.enabled && p.scope.sources.includes(source)
    && (p.scope.environments.includes('*') || p.scope.environments.includes(environment)));
}

/** What one finding makes of a policy's action: injection below the block threshold only flags. */
function effectOf(policy: LoadedPolicy, finding: Finding): Effect {
  if (policy.detector === 'injection' && injectionLevel(finding.score, policy.parsedConfig as InjectionConfig) !== 'high') return 'FLAG';
  return policy.action as Effect;
}

export type ScanResult =
  | { readonly ok: true; readonly hits: Hit[] }
  | { readonly ok: false; readonly errorClass: 'detector_error' | 'detector_timeout' | 'policy_config_invalid'; readonly policy: LoadedPolicy; readonly hits: Hit[] };

/**
 * Runs every applicable policy's detector over every segment. A detector that throws, or whose
 * call runs past budgetMs, ends the scan: the caller blocks (fail closed). Detectors are
 * synchronous and linear-time (RE2 for user patterns), so the budget is checked after each call.
 */
export function scan(policies: readonly LoadedPolicy[], segments: readonly Segment[], budgetMs: number): ScanResult {
  const hits: Hit[] = [];
  for (const policy of policies) {
    const detector = DETECTORS[policy.detector];
    if (policy.parsedConfig === undefined) return { ok: false, errorClass: 'policy_config_invalid', policy, hits };
    for (const segment of segments) {
      const started = performance.now();
      let findings: Finding[];
      try {
        if (!detector) throw new Error(`unknown detector ${policy.detector}`);
        findings = detector.detect(segment.text, policy.parsedConfig);
      } catch {
        return { ok: false, errorClass: 'detector_error', policy, hits };
      }
      if (performance.now() - started > budgetMs) return { ok: false, errorClass: 'detector_timeout', policy, hits };
      if (findings.length === 0) continue;
      const byEffect = new Map<Effect, Finding[]>();
      for (const f of findings) {
        const e = effectOf(policy, f);
        byEffect.set(e, [...(byEffect.get(e) ?? []), f]);
      }
      for (const [effect, fs] of byEffect) hits.push({ policy, segment, effect, findings: fs });
    }
  }
  return { ok: true, hits };
}

// ---- stage: combine -------------------------------------------------------------------------

/** A mask on something that cannot be masked (an attachment's bytes) is a block. */
function effective(hit: Hit): Effect {
  return hit.effect === 'REDACT' && !hit.segment.maskable ? 'BLOCK' : hit.effect;
}

/** Strictest wins: BLOCKED > PENDING_APPROVAL > MODIFIED > FLAGGED > PASSED. */
export function combine(hits: readonly Hit[], source: 'api' | 'browser'): Verdict {
  if (hits.length === 0) return { decision: 'PASSED', reasonKey: null, reasonParams: {}, policy: null };
  const top = [...hits].sort((a, b) => EFFECT_RANK[effective(b)] - EFFECT_RANK[effective(a)])[0]!;
  const effect = effective(top);
  const decision = EFFECT_DECISION[effect];
  const params = { policy: top.policy.name };
  const reasonKey = effect !== top.effect ? 'reason.attachment_unmaskable'
    : ['WARN', 'JUSTIFY', 'REDIRECT'].includes(effect) ? `reason.${effect}` : `reason.${decision}`;
  const verdict: Verdict = { decision, reasonKey, reasonParams: params, policy: top.policy };
  if (source !== 'browser') return verdict;
  const browserEffects = hits.map(effective).filter((e): e is EnforcementAction => ['BLOCK', 'REDIRECT', 'JUSTIFY', 'WARN'].includes(e));
  if (browserEffects.length === 0) return verdict;
  const enforcement = browserEffects.sort((a, b) => EFFECT_RANK[b] - EFFECT_RANK[a])[0]!;
  const owner = hits.find((h) => effective(h) === enforcement)!.policy;
  const actionConfig = Object.keys(owner.action_config).length > 0 ? { ...owner.action_config } : undefined;
  return { ...verdict, enforcementAction: enforcement, ...(actionConfig ? { actionConfig } : {}) };
}

/**
 * An attachment the gateway could not read (image, audio, archive, unknown binary) or read only in
 * part reaches the model unscanned: a verdict that would pass is FLAGGED instead, so a reviewer sees it.
 */
export function flagUninspected(verdict: Verdict, attachments: readonly ExtractedAttachment[]): Verdict {
  if (verdict.decision !== 'PASSED') return verdict;
  const unread = attachments.find((a) => !a.inspected || a.truncated);
  if (!unread) return verdict;
  return { decision: 'FLAGGED', reasonKey: 'reason.attachment_uninspectable', reasonParams: { type: unread.mime }, policy: null };
}

// ---- stage: output --------------------------------------------------------------------------

export interface Shaped {
  /** The text to forward, when the decision lets anything through. */
  readonly output?: string;
  readonly modifiedFields?: Record<string, { role: 'routing' | 'content'; status: 'preserved' | 'masked' | 'unchanged'; value?: string }>;
  /** Which segments were masked, and with which placeholders (for the trace). */
  readonly masked: Record<string, number>;
}

/** Masks every REDACT finding of a maskable segment with one Redactor, so placeholders agree across texts. */
export function shapeOutput(req: VerifyRequest, segments: readonly Segment[], hits: readonly Hit[], decision: Decision, fieldRoles: Readonly<Record<string, string>> | null): Shaped {
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
      index: a.index, ...(a.name ? { name: a.name } : {}), content_type: a.mime, category: a.category,
      inspected: a.inspected, decision, ...(a.note ? { note: a.note } : {}),
    };
  });
}
