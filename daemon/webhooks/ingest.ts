// POST /api/v1/webhooks/ingest: an extension's event becomes a trace. With an idempotency key (the
// body's event_id, else the Idempotency-Key header) the key and the trace are committed in one
// transaction; the key's primary key makes concurrent retries wait for the first delivery and then
// return its trace. Without a key the trace goes through the group-commit writer.
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import { IDEMPOTENCY_KEY, type webhookEnvelope } from '../../shared/command-center-schemas.js';
import type { Principal } from '../../shared/credentials.js';
import { GatewayError } from '../../shared/errors.js';
import type { Tx } from '../db/connect.js';
import type { Deps } from '../deps.js';
import { appendTraces } from '../ledger/append.js';
import { sealedOriginal } from '../traces/at-rest.js';
import type { TraceInput } from '../ledger/streams.js';
import { eventTrace, type IncomingEvent } from './events.js';

export const PAYLOAD_MAX_BYTES = 64 * 1024;

export interface Ingested {
  readonly trace_id: string;
  readonly sequence_num: number;
  readonly integrity_hash: string;
  readonly decision: string;
  readonly should_anchor: boolean;
  /** Present only while anchoring is active for the project: a fresh trace is PENDING. */
  readonly flare_status?: 'PENDING';
}

export type IngestDeps = Pick<Deps, 'sql' | 'writer' | 'secretBox'>;

/** The event of a body the route table has validated against webhookEnvelope. */
export function readEvent(envelope: z.output<typeof webhookEnvelope>, idempotencyHeader: string | string[] | undefined): IncomingEvent {
  const { event_type: eventType, source, event_id: eventId, ...payload } = envelope;
  const header = Array.isArray(idempotencyHeader) ? idempotencyHeader[0] : idempotencyHeader;
  const key = eventId ?? (header === undefined ? undefined : IDEMPOTENCY_KEY.safeParse(header).data);
  if (eventId === undefined && header !== undefined && key === undefined) {
    throw new GatewayError('validation_error', 'Invalid request: Idempotency-Key: 1 to 200 characters without control characters');
  }
  const text = JSON.stringify(payload);
  if (Buffer.byteLength(text) > PAYLOAD_MAX_BYTES) {
    throw new GatewayError(
      'payload_too_large',
      `The event payload (fields other than event_type, source and event_id) is larger than ${PAYLOAD_MAX_BYTES} bytes.`,
    );
  }
  if (text.includes('\\u0000')) throw new GatewayError('validation_error', 'Invalid request: payload: must not contain NUL characters');
  return { eventType, source, eventId: key ?? null, payload };
}

async function appendKeyed(
  tx: Tx,
  projectId: string,
  extensionId: string,
  key: string,
  input: TraceInput,
): Promise<Omit<Ingested, 'should_anchor'> & { replayed: boolean }> {
  const id = randomUUID();
  const claimed = await tx`
    insert into webhook_deliveries (project_id, extension_id, idempotency_key, trace_id)
    values (${projectId}, ${extensionId}, ${key}, ${id}) on conflict do nothing returning trace_id`;
  if (claimed.length === 0) {
    const [first] = await tx<{ id: string; sequence_num: string; integrity_hash: string; decision: string }[]>`
      select t.id::text as id, t.sequence_num::text as sequence_num, t.integrity_hash, t.decision
      from webhook_deliveries d join traces t on t.id = d.trace_id
      where d.project_id = ${projectId} and d.extension_id = ${extensionId} and d.idempotency_key = ${key}`;
    return {
      trace_id: first!.id,
      sequence_num: Number(first!.sequence_num),
      integrity_hash: first!.integrity_hash,
      decision: first!.decision,
      replayed: true,
    };
  }
  const [appended] = await appendTraces(tx, projectId, [{ ...input, id }]);
  return {
    trace_id: appended!.id,
    sequence_num: appended!.sequenceNum,
    integrity_hash: appended!.integrityHash,
    decision: input.decision,
    replayed: false,
  };
}

export async function ingestEvent(
  deps: IngestDeps,
  principal: Principal,
  event: IncomingEvent,
  now = new Date(),
): Promise<Ingested & { replayed: boolean }> {
  const [project] = await deps.sql<{ attestation_enabled: boolean; audit_detail_level: string }[]>`
    select attestation_enabled, audit_detail_level from projects where id = ${principal.projectId}`;
  const shouldAnchor = project?.attestation_enabled ?? false;
  // The original event is kept only sealed, and only at audit level full; the trace keeps it masked.
  const original = { event_type: event.eventType, source: event.source, event_id: event.eventId, payload: event.payload };
  const raw = await sealedOriginal(deps.sql, deps.secretBox, principal.projectId, original, project?.audit_detail_level ?? 'standard');
  const input = eventTrace(event, { id: principal.credentialId, name: principal.name }, now, raw);
  const flare = shouldAnchor ? { flare_status: 'PENDING' as const } : {};
  if (event.eventId === null) {
    const written = await deps.writer.append(principal.projectId, input);
    return {
      trace_id: written.id,
      sequence_num: written.sequenceNum,
      integrity_hash: written.integrityHash,
      decision: input.decision,
      should_anchor: shouldAnchor,
      ...flare,
      replayed: false,
    };
  }
  // Written around the writer: while its dead-letter queue is not yet replayed that would overtake queued traces.
  if (deps.writer.status().queueing) {
    throw new GatewayError('service_unavailable', 'Traces are being queued while the database recovers; retry the delivery later.');
  }
  const done = await deps.sql.begin((tx) => appendKeyed(tx, principal.projectId, principal.credentialId, event.eventId!, input));
  return { ...done, should_anchor: shouldAnchor, ...flare };
}
