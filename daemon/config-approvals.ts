// The approval settings (GATEWAY_APPROVAL_*, GATEWAY_MAX_PENDING_APPROVALS_*): how long a request
// stays open, how many one agent or credential may hold and open, who may decide it, and the event
// streams that announce changes. Part of config.ts's one schema (spread into it), like
// config-identity.ts and config-console.ts; Config carries ApprovalsConfig's fields as its own.
import type { z } from 'zod';
import { flag, positiveInt } from './config-values.js';

export const approvalsEnv = {
  GATEWAY_APPROVAL_TTL_SECONDS: positiveInt(3600),
  GATEWAY_MAX_PENDING_APPROVALS_PER_AGENT: positiveInt(20),
  GATEWAY_MAX_PENDING_APPROVALS_PER_CREDENTIAL: positiveInt(50),
  GATEWAY_APPROVAL_REQUESTS_PER_MINUTE: positiveInt(30),
  GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER: flag,
  GATEWAY_APPROVAL_EVENTS_MAX_STREAMS: positiveInt(256),
  GATEWAY_APPROVAL_EVENTS_STREAM_SECONDS: positiveInt(60),
};

export interface ApprovalsConfig {
  readonly approvalTtlSeconds: number;
  readonly maxPendingApprovalsPerAgent: number;
  /** Open approvals one credential may hold, anonymous calls and every agent id it names included. */
  readonly maxPendingApprovalsPerCredential: number;
  /** New approval requests one credential may open in any 60 s (held calls past it: -32005). */
  readonly approvalRequestsPerMinute: number;
  /** GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER: nobody decides an approval their own credential or user opened. */
  readonly approvalDeciderNotRequester: boolean;
  /** GET /api/v1/approvals/events (approvals/event-stream.ts): open streams per daemon, and how long each lasts. */
  readonly approvalEvents: { readonly maxStreams: number; readonly lifetimeMs: number };
}

export function approvalsConfigOf(e: z.output<z.ZodObject<typeof approvalsEnv>>): ApprovalsConfig {
  return {
    approvalTtlSeconds: e.GATEWAY_APPROVAL_TTL_SECONDS,
    maxPendingApprovalsPerAgent: e.GATEWAY_MAX_PENDING_APPROVALS_PER_AGENT,
    maxPendingApprovalsPerCredential: e.GATEWAY_MAX_PENDING_APPROVALS_PER_CREDENTIAL,
    approvalRequestsPerMinute: e.GATEWAY_APPROVAL_REQUESTS_PER_MINUTE,
    approvalDeciderNotRequester: e.GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER,
    approvalEvents: { maxStreams: e.GATEWAY_APPROVAL_EVENTS_MAX_STREAMS, lifetimeMs: e.GATEWAY_APPROVAL_EVENTS_STREAM_SECONDS * 1000 },
  };
}
