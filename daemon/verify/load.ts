// What verify's stages read, loaded before they run: the project's settings, the named agent, the
// field roles of structured_input's tool and the project's policies (through the state cache, so
// an unreachable database is decided on from the state last read), and the attachments' text.
//
// Extraction is here, not a stage: it is asynchronous work in worker threads with a deadline, and
// the stages are pure and synchronous. What came of it (the text and facts, a deadline overrun, a
// bad attachment) is data the attachments stage turns into a verdict in its place, after the agent
// stage, so a refused agent is refused first. A named agent that may not act is refused by that
// first stage whatever it sent, so its attachments are not extracted at all (no work for it).
//
// The optional ONNX injection model (GATEWAY_INJECTION_MODEL_DIR) runs here too, for the same reason:
// over the texts the segments stage will produce, only when an injection policy that consults it
// applies, within the detector budget. Its scores, or its failure, are data for the policies stage.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../shared/canonical-json.js';
import type { VerifyBody } from '../../shared/verify-request-schema.js';
import type { AgentStatus } from '../agents/lifecycle.js';
import type { Sql } from '../db/connect.js';
import { agentGate } from '../agents/gate.js';
import { readOrRecall } from '../state-cache/last-known.js';
import { AttachmentError, extractAttachments } from './attachments/index.js';
import { OnnxTimeoutError, type OnnxClassifier } from '../models/onnx-classifier.js';
import { usesOnnxModel } from '../detectors/injection-config.js';
import { loadPolicies } from './prompt-policies.js';
import { readFieldRoles } from './field-roles.js';
import { applicable } from './stages/detection.js';
import { segmentsOf } from './stages/segments.js';
import type { Extraction, ModelScores, VerifyContext } from './stages/types.js';

/** One read of verify's state: from the database or, while it is unreachable, as last read (last-known.ts). */
function remembered<T>(sql: Sql, projectId: string, what: string, read: () => Promise<T>): Promise<T> {
  return readOrRecall(sql, `verify\u0000${projectId}\u0000${what}`, read);
}

/** The request's canonical hash: what an approval is bound to. */
export function requestHash(body: VerifyBody): string {
  return (
    'sha256:'
    + createHash('sha256')
      .update(
        canonicalJson({
          prompt: body.prompt,
          attachments: body.attachments ?? [],
          structured_input: body.structured_input ?? null,
          extracted_text: body.extracted_text ?? null,
        }),
      )
      .digest('hex')
  );
}

/** For an agent the agent stage refuses: the attachments stage is never reached. */
const NOT_EXTRACTED: Extraction = { ok: true, value: [] };

async function extract(body: VerifyBody): Promise<Extraction> {
  try {
    return { ok: true, value: await extractAttachments(body.attachments ?? []) };
  } catch (err) {
    if (!(err instanceof AttachmentError)) throw err;
    if (err.code === 'attachment_extraction_timeout') return { ok: false, code: err.code };
    return { ok: false, code: 'validation_error', detail: `Invalid request: attachments.${err.index}: ${err.detail} (${err.code})` };
  }
}

/** The ONNX model's probability for each segment's text; undefined when it has nothing to decide. */
async function modelScores(ctx: VerifyContext, model: OnnxClassifier | null): Promise<ModelScores | undefined> {
  if (model === null || !ctx.extraction.ok || !agentGate(ctx.agent?.status ?? null).ok) return undefined;
  if (!applicable(ctx.policies, ctx.source, ctx.environment).some((p) => usesOnnxModel(p.detector, p.parsedConfig))) return undefined;
  const segments = segmentsOf(ctx.request, ctx.extraction.value, ctx.fieldRoles);
  try {
    const scores = await model.score(
      segments.map((s) => s.text),
      ctx.detectorBudgetMs,
    );
    return { ok: true, bySegment: new Map(segments.map((s, i) => [s.id, scores[i]!])) };
  } catch (err) {
    const detail = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    return { ok: false, errorClass: err instanceof OnnxTimeoutError ? 'detector_timeout' : 'detector_error', detail };
  }
}

export async function loadVerifyContext(
  sql: Sql,
  projectId: string,
  body: VerifyBody,
  detectorBudgetMs: number,
  model: OnnxClassifier | null = null,
): Promise<VerifyContext> {
  const meta = body.metadata ?? {};
  const agentId = typeof meta.agent_id === 'string' && meta.agent_id !== '' ? meta.agent_id : null;
  const environment = typeof meta.environment === 'string' && meta.environment !== '' ? meta.environment : 'prod';
  const tool = body.structured_input?.tool_name ?? null;
  const [project, agent, roles, policies] = await Promise.all([
    remembered(
      sql,
      projectId,
      'project',
      () => sql<{ audit_detail_level: string; attestation_enabled: boolean }[]>`
      select audit_detail_level, attestation_enabled from projects where id = ${projectId}`,
    ),
    agentId
      ? remembered(
          sql,
          projectId,
          `agent\u0000${agentId}`,
          () => sql<{ status: AgentStatus }[]>`select status from agents where project_id = ${projectId} and id = ${agentId}`,
        )
      : Promise.resolve([]),
    tool ? remembered(sql, projectId, `field-roles\u0000${tool}`, () => readFieldRoles(sql, projectId, tool)) : Promise.resolve([]),
    remembered(sql, projectId, 'policies', () => loadPolicies(sql, projectId)),
  ]);
  const status = agent[0]?.status ?? null;
  // An id that names no agent of the project is anonymous traffic: not attributed.
  const named = agentId !== null && status !== null ? { id: agentId, status } : null;
  const ctx: VerifyContext = {
    request: {
      prompt: body.prompt,
      metadata: meta,
      context: body.context,
      structured_input: body.structured_input,
      extracted_text: body.extracted_text,
    },
    source: meta.source === 'browser' ? 'browser' : 'api',
    environment,
    agent: named,
    policies,
    fieldRoles: roles.length > 0 ? Object.fromEntries(roles.map((r) => [r.field, r.role])) : null,
    extraction: agentGate(named?.status ?? null).ok ? await extract(body) : NOT_EXTRACTED,
    detectorBudgetMs,
    requestHash: requestHash(body),
    auditLevel: project[0]?.audit_detail_level ?? 'standard',
    attestation: project[0]?.attestation_enabled ?? false,
  };
  const scores = await modelScores(ctx, model);
  return scores === undefined ? ctx : { ...ctx, modelScores: scores };
}
