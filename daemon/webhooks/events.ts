// How an extension's event becomes a trace: its decision (from the event type's last word), its
// time (the event's own timestamp when valid), and what the trace keeps. Pure, so the mapping is
// testable and documented in one place.
import { z } from 'zod';
import type { SealedRaw } from '../crypto/raw-keys.js';
import type { TraceInput } from '../ledger/streams.js';
import { DisplayMask } from '../traces/at-rest.js';

/** Last word of the event type (after the last `.`, `:` or `/`) -> decision; anything else is PASSED. */
export const EVENT_DECISIONS: Readonly<Record<string, string>> = {
  blocked: 'BLOCKED',
  block: 'BLOCKED',
  denied: 'BLOCKED',
  deny: 'BLOCKED',
  rejected: 'BLOCKED',
  flagged: 'FLAGGED',
  flag: 'FLAGGED',
  warned: 'FLAGGED',
  warn: 'FLAGGED',
  warning: 'FLAGGED',
  redacted: 'MODIFIED',
  masked: 'MODIFIED',
  modified: 'MODIFIED',
};

export function decisionOfEvent(eventType: string): string {
  const word = eventType.trim().toLowerCase().split(/[.:/]/).pop() ?? '';
  return EVENT_DECISIONS[word] ?? 'PASSED';
}

/** Clock skew tolerated for an event timestamp ahead of the gateway's clock. */
export const FUTURE_SKEW_MS = 5 * 60_000;
const isoDateTime = z.iso.datetime({ offset: true });

/** The event's own time when it is an ISO 8601 date-time with offset, not before 2000 and not in the future (beyond skew). */
export function eventTime(value: unknown, now: Date): string | null {
  if (typeof value !== 'string' || !isoDateTime.safeParse(value).success) return null;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms) || ms < Date.UTC(2000, 0, 1) || ms > now.getTime() + FUTURE_SKEW_MS) return null;
  return new Date(ms).toISOString();
}

export interface IncomingEvent {
  readonly eventType: string;
  readonly source: string;
  readonly eventId: string | null;
  readonly payload: Record<string, unknown>;
}

export interface Extension {
  readonly id: string;
  readonly name: string;
}

/**
 * The event's trace. Everything the extension sent is kept masked (traces/at-rest.ts: a card
 * number or a token in the payload becomes a placeholder); the original, only when the caller
 * sealed it (audit level `full`), as `raw`.
 */
export function eventTrace(event: IncomingEvent, extension: Extension, now: Date, raw?: SealedRaw): TraceInput {
  const ownTime = eventTime(event.payload.timestamp ?? event.payload.occurred_at, now);
  const mask = new DisplayMask();
  const type = mask.text(event.eventType);
  const source = mask.text(event.source);
  return {
    traceType: 'EXTERNAL_EVENT',
    decision: decisionOfEvent(event.eventType),
    reason: `extension event ${type} from ${source} (extension ${extension.id})`,
    actionName: type,
    environment: 'prod',
    agentId: null,
    content: {
      // The list shows this summary, never the payload.
      display: `${source}: ${type}`,
      metadata: { source, extension_id: extension.id },
      details: {
        extension: { id: extension.id, name: extension.name },
        event: { type, source, id: mask.nullable(event.eventId) },
        payload: mask.value(event.payload),
      },
      occurred_at: ownTime ?? now.toISOString(),
      occurred_at_from: ownTime ? 'event' : 'received',
      received_at: now.toISOString(),
      ...(raw ? { raw } : {}),
    },
  };
}
