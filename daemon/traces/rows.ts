// What a trace shows: the list row of the specification, and the full record of a lookup by id.
// One rule decides what content a row may carry (contentView): only the transmitted,
// display-safe text, never a raw original. The anchoring fields are derived (anchor/trace-status.ts),
// never stored on the trace.
import { NOT_ANCHORING, type FlareFields } from '../anchor/trace-status.js';

export type ContentState = 'transmitted_masked' | 'transmitted_plain' | 'not_transmitted' | 'unavailable';

const MASKED = new Set(['MODIFIED', 'REDACTED', 'ANONYMIZED']);
const PLAIN = new Set(['PASSED', 'FLAGGED', 'ALLOWED']);

/** The content body a trace may carry (written by the pipelines; fields are all optional). */
export interface TraceContent {
  /** The text that left the gateway: the masked form for masked decisions, the prompt otherwise. */
  display?: string;
  extracted_text?: string | null;
  metadata?: Record<string, unknown>;
  context?: Record<string, unknown>;
  /** Per-policy scores, entities, match details: full record only. */
  details?: Record<string, unknown>;
  /** The raw original, AES-256-GCM encrypted, present only while audit_detail_level is full. */
  raw?: unknown;
  [key: string]: unknown;
}

export interface ContentView {
  display_content: string;
  content_state: ContentState;
}

/** The one rule for what a row shows of its content. `content` is null once retention removed it. */
export function contentView(decision: string, content: TraceContent | null): ContentView {
  const display = typeof content?.display === 'string' ? content.display : null;
  if (MASKED.has(decision)) {
    return display === null
      ? { display_content: '', content_state: 'unavailable' }
      : { display_content: display, content_state: 'transmitted_masked' };
  }
  if (PLAIN.has(decision)) {
    return display === null
      ? { display_content: '', content_state: 'unavailable' }
      : { display_content: display, content_state: 'transmitted_plain' };
  }
  return { display_content: '', content_state: 'not_transmitted' };
}

export interface StoredTrace {
  id: string;
  sequence_num: string;
  created_at: Date;
  trace_type: string;
  decision: string;
  reason: string | null;
  action_name: string | null;
  environment: string;
  agent_id: string | null;
  content_hash: string;
  prev_hash: string;
  integrity_hash: string;
  body: TraceContent | null;
  user_action: string | null;
  justification: string | null;
  /** A raw original exists and its data key was not shredded (query.ts). */
  raw_readable: boolean | null;
}

export function listRow(t: StoredTrace, auditLevel: string, flare: FlareFields = NOT_ANCHORING): Record<string, unknown> {
  const view = contentView(t.decision, t.body);
  const metadata = { ...(t.body?.metadata ?? {}), ...(t.agent_id ? { agent_id: t.agent_id } : {}) };
  return {
    id: t.id,
    sequence_num: Number(t.sequence_num),
    timestamp: t.created_at.toISOString(),
    decision: t.decision,
    reason: t.reason,
    integrity_hash: t.integrity_hash,
    flare_status: flare.flare_status,
    flare_tx_hash: flare.flare_tx_hash,
    action_name: t.action_name,
    environment: t.environment,
    display_content: view.display_content,
    content_state: view.content_state,
    raw_available: t.raw_readable === true && auditLevel === 'full',
    input_prompt: view.display_content,
    output_response: null,
    metadata,
    userAction: t.user_action,
    justification: t.justification,
  };
}

/** The full record: the row, plus what the list leaves out (trace type, payloads, proof fields). */
export function fullRecord(t: StoredTrace, auditLevel: string, flare: FlareFields = NOT_ANCHORING): Record<string, unknown> {
  const row = listRow(t, auditLevel, flare);
  const masked = MASKED.has(t.decision);
  const { raw: _raw, display: _display, metadata: _metadata, extracted_text: extracted, ...payloads } = t.body ?? {};
  return {
    ...row,
    trace_type: t.trace_type,
    agent_id: t.agent_id,
    extracted_text: masked ? null : (extracted ?? null),
    content_retained: t.body !== null,
    payloads,
    proof: { integrity_hash: t.integrity_hash, prev_hash: t.prev_hash, content_hash: t.content_hash, sequence_num: Number(t.sequence_num) },
  };
}
