// POST /api/v1/verify, top to bottom:
//
//   parse and validate  ->  load (agent, policies, field roles, project)  ->  agent gate
//   -> extract text (prompt, attachments, structured input, extracted_text)  ->  run policies
//   -> combine (strictest wins)  ->  build output  ->  append trace (+ approval)  ->  answer
//
// The project emergency stop is enforced before any of this, by authentication (a project key is
// refused while it is active). Every stage but load, extract and record is a pure function in
// stages.ts. A detector that fails or overruns its budget blocks the request (fail closed).
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/canonical-json.js';
import type { AgentStatus } from '../agents/lifecycle.js';
import type { Deps } from '../api/deps.js';
import type { Sql } from '../db/connect.js';
import type { TraceWritten } from '../ledger/trace-writer.js';
import { RAW_PURPOSE } from '../traces/reveal.js';
import { createApproval } from '../approvals/store.js';
import { sealRaw } from '../crypto/raw-keys.js';
import { GatewayError } from '../../shared/errors.js';
import { AttachmentError, extractAttachments, type ExtractedAttachment } from './attachments.js';
import { message, type Locale } from './messages.js';
import { loadPolicies, type LoadedPolicy } from './policies.js';
import {
  applicable, attachmentFindings, combine, contentTypeOf, flagUninspected, gateAgent, scan, segmentsOf, shapeOutput,
  type Hit, type Verdict, type VerifyRequest,
} from './stages.js';
import type { VerifyBody } from '../../shared/verify-request-schema.js';

export interface VerifyOutcome {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly written: TraceWritten;
}

interface Loaded {
  readonly source: 'api' | 'browser';
  readonly environment: string;
  readonly agentId: string | null;
  readonly agentStatus: AgentStatus | null;
  readonly policies: LoadedPolicy[];
  readonly fieldRoles: Record<string, string> | null;
  readonly auditLevel: string;
  readonly attestation: boolean;
}

const STATUS: Record<string, number> = { PASSED: 200, FLAGGED: 200, MODIFIED: 200, PENDING_APPROVAL: 202, BLOCKED: 403 };

async function load(sql: Sql, projectId: string, body: VerifyBody): Promise<Loaded> {
  const meta = body.metadata ?? {};
  const agentId = typeof meta.agent_id === 'string' && meta.agent_id !== '' ? meta.agent_id : null;
  const environment = typeof meta.environment === 'string' && meta.environment !== '' ? meta.environment : 'prod';
  const tool = body.structured_input?.tool_name ?? null;
  const [project, agent, roles, policies] = await Promise.all([
    sql<{ audit_detail_level: string; attestation_enabled: boolean }[]>`
      select audit_detail_level, attestation_enabled from projects where id = ${projectId}`,
    agentId ? sql<{ status: AgentStatus }[]>`select status from agents where project_id = ${projectId} and id = ${agentId}` : Promise.resolve([]),
    tool ? sql<{ field: string; role: string }[]>`select field, role from verify_field_roles where project_id = ${projectId} and tool_name = ${tool}` : Promise.resolve([]),
    loadPolicies(sql, projectId),
  ]);
  return {
    source: meta.source === 'browser' ? 'browser' : 'api',
    environment,
    agentId,
    agentStatus: agent[0]?.status ?? null,
    policies,
    fieldRoles: roles.length > 0 ? Object.fromEntries(roles.map((r) => [r.field, r.role])) : null,
    auditLevel: project[0]?.audit_detail_level ?? 'standard',
    attestation: project[0]?.attestation_enabled ?? false,
  };
}

/** The request's canonical hash: what an approval is bound to. */
export function requestHash(body: VerifyBody): string {
  return 'sha256:' + createHash('sha256').update(canonicalJson({
    prompt: body.prompt, attachments: body.attachments ?? [], structured_input: body.structured_input ?? null, extracted_text: body.extracted_text ?? null,
  })).digest('hex');
}

function findingsOnTrace(hits: readonly Hit[]): Record<string, unknown>[] {
  return hits.map((h) => ({
    policy_id: h.policy.id, policy: h.policy.name, detector: h.policy.detector, action: h.policy.action, effect: h.effect,
    segment: h.segment.id,
    findings: h.findings.map((f) => ({ entity: f.entity, score: f.score, ...(f.rule ? { rule: f.rule } : {}), start: f.start, end: f.end })),
  }));
}

async function extract(body: VerifyBody): Promise<{ attachments: ExtractedAttachment[] } | { timeout: string }> {
  try {
    return { attachments: await extractAttachments(body.attachments ?? []) };
  } catch (err) {
    if (!(err instanceof AttachmentError)) throw err;
    if (err.code === 'attachment_extraction_timeout') return { timeout: err.code };
    throw new GatewayError('validation_error', `Invalid request: attachments.${err.index}: ${err.detail} (${err.code})`);
  }
}

export async function runVerify(deps: Deps, projectId: string, body: VerifyBody, locale: Locale): Promise<VerifyOutcome> {
  const loaded = await load(deps.sql, projectId, body);
  if (loaded.agentId && loaded.agentStatus) deps.activity.record(projectId, loaded.agentId);
  const req: VerifyRequest = { prompt: body.prompt, metadata: body.metadata ?? {}, context: body.context, structured_input: body.structured_input, extracted_text: body.extracted_text };

  // 1. Agent gate: a named agent that may not act is refused before anything is scanned.
  let verdict: Verdict | null = gateAgent(loaded.agentStatus);
  let attachments: ExtractedAttachment[] = [];
  let segments = segmentsOf(req, attachments, loaded.fieldRoles);
  let hits: Hit[] = [];
  if (!verdict) {
    // 2. Extract: attachments are sniffed and their text taken out (400 on oversize or undecodable
    // input; an extraction past its time budget is a check that could not run).
    const extracted = await extract(body);
    if ('timeout' in extracted) {
      verdict = { decision: 'BLOCKED', reasonKey: 'reason.fail_closed', reasonParams: { error_class: extracted.timeout }, policy: null, errorClass: extracted.timeout };
    } else {
      attachments = extracted.attachments;
      segments = segmentsOf(req, attachments, loaded.fieldRoles);
      // 3. Run the project's policies that apply to this source and environment.
      const scanned = scan(applicable(loaded.policies, loaded.source, loaded.environment), segments, deps.config.detectorBudgetMs);
      hits = scanned.hits;
      // 4. Combine: strictest wins; a check that could not run blocks; nothing uninspected passes silently.
      verdict = scanned.ok ? flagUninspected(combine(hits, loaded.source), attachments)
        : { decision: 'BLOCKED', reasonKey: 'reason.fail_closed', reasonParams: { error_class: scanned.errorClass }, policy: scanned.policy, errorClass: scanned.errorClass };
    }
  }
  // 5. Output: masked prompt and fields when anything is forwarded.
  const shaped = shapeOutput(req, segments, hits, verdict.decision, loaded.fieldRoles);
  const reason = verdict.reasonKey ? message(locale, verdict.reasonKey, verdict.reasonParams) : null;
  const englishReason = verdict.reasonKey ? message('en', verdict.reasonKey, verdict.reasonParams) : null;
  const findings = attachments.length > 0 ? attachmentFindings(attachments, hits) : undefined;

  // 6. Record: the trace carries what was transmitted, the findings, and (only at audit level
  // full) the sealed raw original. A held request then gets its approval, bound to the request
  // hash and found by its trace id (GET /approvals/status?trace_id=).
  const transmitted = shaped.output !== undefined;
  const extracted = [...attachments.filter((a) => a.text !== null).map((a) => a.text!), ...(body.extracted_text ? [body.extracted_text] : [])].join('\n\n');
  const raw = loaded.auditLevel === 'full'
    ? await sealRaw(deps.sql, deps.secretBox, projectId, JSON.stringify({ prompt: body.prompt, structured_input: body.structured_input ?? null, extracted_text: body.extracted_text ?? null, attachments: attachments.map((a) => ({ name: a.name, mime: a.mime, text: a.text })) }), RAW_PURPOSE)
    : undefined;
  const traceId = crypto.randomUUID();
  const written = await deps.writer.appendOrQueue(projectId, {
    id: traceId,
    traceType: 'VERIFY',
    decision: verdict.decision,
    reason: englishReason,
    actionName: loaded.source === 'browser' ? 'browser.verify' : 'verify',
    environment: loaded.environment,
    // An id that names no agent of the project is anonymous traffic: not attributed.
    agentId: loaded.agentStatus ? loaded.agentId : null,
    content: {
      display: transmitted ? shaped.output : '',
      extracted_text: transmitted && verdict.decision !== 'MODIFIED' && extracted !== '' ? extracted : null,
      metadata: req.metadata,
      ...(req.context ? { context: req.context } : {}),
      details: {
        source: loaded.source,
        policies: findingsOnTrace(hits),
        ...(verdict.code ? { refusal: verdict.code } : {}),
        ...(verdict.errorClass ? { error_class: verdict.errorClass, failed_policy: verdict.policy?.id } : {}),
        ...(findings ? { attachments: findings } : {}),
        ...(shaped.modifiedFields ? { modified_fields: Object.fromEntries(Object.entries(shaped.modifiedFields).map(([k, v]) => [k, { role: v.role, status: v.status }])) } : {}),
        ...(verdict.enforcementAction ? { enforcement_action: verdict.enforcementAction } : {}),
        masked: shaped.masked,
        request_hash: requestHash(body),
      },
      ...(raw ? { raw } : {}),
    },
  });

  if (verdict.decision === 'PENDING_APPROVAL') {
    await createApproval(deps.sql, projectId, { kind: 'verify', traceId, agentId: loaded.agentStatus ? loaded.agentId : null, argumentsHash: requestHash(body), ttlSeconds: deps.config.approvalTtlSeconds });
  }

  // 7. Answer: the decision's status; optional fields left out when they do not apply.
  const responseBody: Record<string, unknown> = {
    decision: verdict.decision,
    ...(shaped.output !== undefined ? { output: shaped.output } : {}),
    ...(reason ? { reason } : {}),
    trace_id: written.id,
    ...(written.integrityHash !== null ? { integrity_hash: written.integrityHash, sequence_num: written.sequenceNum } : {}),
    // Every decision qualifies while the project's attestation is on; a fresh trace is never anchored yet.
    should_anchor: loaded.attestation,
    ...(loaded.attestation ? { flare_status: 'PENDING' } : {}),
    content_type: contentTypeOf(attachments),
    ...(findings ? { findings } : {}),
    ...(verdict.enforcementAction ? { enforcement_action: verdict.enforcementAction } : {}),
    ...(verdict.enforcementAction && verdict.actionConfig ? { action_config: verdict.actionConfig } : {}),
    ...(verdict.errorClass ? { error_class: verdict.errorClass } : {}),
    ...(shaped.modifiedFields ? { modified_fields: shaped.modifiedFields } : {}),
  };
  return { status: STATUS[verdict.decision]!, body: responseBody, written };
}
