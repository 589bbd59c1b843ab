// The two chained streams of a project: governance traces and the admin-action log. Each stream
// says which table holds it and how an input becomes a row; every column of a row except
// integrity_hash is the hashed header (shared/ledger-hash.ts).
import { randomBytes, randomUUID } from 'node:crypto';
import { contentHashOfText } from '../../shared/ledger-hash.js';
import { canonicalContent } from './content-text.js';

export type StreamName = 'traces' | 'admin';

export interface TraceInput {
  /**
   * The trace's id (a lower-case UUID), when the caller must know it before the trace is in the
   * ledger (the writer assigns one to every trace; a dead-lettered trace keeps it through replay).
   */
  readonly id?: string;
  readonly traceType: string;
  readonly decision: string;
  readonly reason?: string | null;
  readonly actionName?: string | null;
  readonly environment?: string;
  readonly agentId?: string | null;
  /** Prompts, arguments, payloads: kept apart and committed by a salted hash (retention may delete it). */
  readonly content: Record<string, unknown>;
}

export interface AdminInput {
  readonly action: string;
  /** `oidc`: an OAuth access token's subject (actor id: its display name; daemon/identity/). */
  readonly actorKind: 'user' | 'project_key' | 'extension' | 'system' | 'oidc';
  readonly actorId: string | null;
  readonly credentialId: string | null;
  readonly targetType: string;
  readonly targetId: string | null;
  readonly ocsfClassUid: number;
  readonly ocsfActivityId: number;
  readonly requestId: string | null;
  readonly details: Record<string, unknown>;
}

export interface Position {
  readonly projectId: string;
  readonly seq: number;
  readonly createdAt: string;
  readonly prevHash: string;
}

export type Header = Record<string, unknown>;

export interface BuiltEntry {
  readonly header: Header;
  readonly extra?: { table: 'trace_content'; row: Record<string, unknown> };
}

const SALT_BYTES = 16;
const SALTS_PER_DRAW = 256;
let drawn = Buffer.alloc(0);
let taken = 0;

/**
 * A trace's salt: 16 random bytes from a block drawn 256 salts at a time (as randomUUID buffers
 * its entropy), one call into the CSPRNG per 256 traces. Every block is new, so no salt handed out
 * is ever overwritten.
 */
function nextSalt(): Buffer {
  if (taken >= drawn.length) {
    drawn = randomBytes(SALT_BYTES * SALTS_PER_DRAW);
    taken = 0;
  }
  taken += SALT_BYTES;
  return drawn.subarray(taken - SALT_BYTES, taken);
}

export function buildTrace(input: TraceInput, at: Position): BuiltEntry {
  const id = input.id ?? randomUUID();
  const salt = nextSalt();
  const header: Header = {
    id,
    project_id: at.projectId,
    sequence_num: at.seq,
    created_at: at.createdAt,
    trace_type: input.traceType,
    decision: input.decision,
    reason: input.reason ?? null,
    action_name: input.actionName ?? null,
    environment: input.environment ?? 'prod',
    agent_id: input.agentId ?? null,
    content_hash: contentHashOfText(salt, canonicalContent(input.content)),
    prev_hash: at.prevHash,
  };
  return {
    header,
    extra: { table: 'trace_content', row: { trace_id: id, project_id: at.projectId, created_at: at.createdAt, salt, body: input.content } },
  };
}

export function buildAdmin(input: AdminInput, at: Position): BuiltEntry {
  return {
    header: {
      id: randomUUID(),
      project_id: at.projectId,
      sequence_num: at.seq,
      created_at: at.createdAt,
      action: input.action,
      actor_kind: input.actorKind,
      actor_id: input.actorId,
      credential_id: input.credentialId,
      target_type: input.targetType,
      target_id: input.targetId,
      ocsf_class_uid: input.ocsfClassUid,
      ocsf_activity_id: input.ocsfActivityId,
      request_id: input.requestId,
      details: input.details,
      prev_hash: at.prevHash,
    },
  };
}

export const STREAM_TABLE: Record<StreamName, 'traces' | 'admin_log'> = { traces: 'traces', admin: 'admin_log' };

/** Header of a stored row, as hashed: timestamps back to ISO strings, bigints to numbers. */
export function headerOfRow(row: Record<string, unknown>): Header {
  const header: Header = {};
  for (const [key, value] of Object.entries(row)) {
    if (key === 'integrity_hash') continue;
    if (value instanceof Date) header[key] = value.toISOString();
    else if (key === 'sequence_num' || key === 'ocsf_class_uid' || key === 'ocsf_activity_id') header[key] = Number(value);
    else header[key] = value;
  }
  return header;
}
