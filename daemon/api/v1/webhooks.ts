// POST /api/v1/webhooks/ingest (extension keys only): an external event becomes a trace; 202 with
// its position. A retried delivery with the same event_id or Idempotency-Key answers the first trace.
import { webhookEnvelope } from '../../../shared/command-center-schemas.js';
import { defineRoute, type Route } from '../../http/types.js';
import { ingestEvent, readEvent, type IngestDeps } from '../../webhooks/ingest.js';

export function webhookRoutes(deps: IngestDeps): Route[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/api/v1/webhooks/ingest',
      summary: 'Ingest an extension event as a trace',
      auth: 'extension',
      writesOnlyTraces: true,
      body: webhookEnvelope,
      async handler(r) {
        const event = readEvent(r.body, r.req.headers['idempotency-key']);
        const { replayed, ...body } = await ingestEvent(deps, r.principal, event);
        const headers: Record<string, string> = replayed ? { 'Idempotent-Replayed': 'true' } : {};
        return { status: 202, body, headers };
      },
    }),
  ];
}
