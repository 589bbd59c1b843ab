// The only writer of status codes and error bodies. An unknown error becomes internal_error with
// the request id: no stack trace, SQL text or parameters ever reach a client.
import type { ServerResponse } from 'node:http';
import { ERRORS, GatewayError, type ErrorBody } from '../../shared/errors.js';
import { DATABASE } from '../db/availability.js';
import { isDatabaseUnreachable } from '../db/unreachable.js';
import { TraceNotPersistedError } from '../ledger/dlq-outcome.js';
import { localizedError } from './locale.js';
import type { Reply, RequestContext } from './types.js';

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  if (body === undefined) {
    res.statusCode = status;
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * An error object under a status someone else chose (the MCP proxy passes on an upstream's 4xx):
 * the code of that status where the table has one, else upstream_refused.
 */
export function sendStatusError(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  const code = status === 404 ? 'not_found' : status === 405 ? 'method_not_allowed' : 'upstream_refused';
  const requestId = String(res.getHeader('x-request-id') ?? '');
  const body: ErrorBody = { error: { code, message, request_id: requestId } };
  sendJson(res, status, body, headers);
}

export async function sendReply(res: ServerResponse, reply: Reply): Promise<void> {
  if ('stream' in reply) return reply.stream(res);
  sendJson(res, reply.status, reply.body, reply.headers);
}

export function sendError(res: ServerResponse, ctx: RequestContext, err: unknown): number {
  const unreachable = err instanceof TraceNotPersistedError || isDatabaseUnreachable(err);
  if (unreachable) ctx.log.warn({ err }, 'database unreachable: refused (fail closed)');
  if (unreachable && ctx.governance && !res.headersSent) {
    // The decision could not be durably recorded: 503 with no body (spec, Verify).
    const subsystems = err instanceof TraceNotPersistedError ? err.degradedSubsystems.join(',') : DATABASE;
    res.setHeader('X-Gateway-Status', 'degraded');
    res.setHeader('X-Gateway-Degraded-Subsystems', subsystems || 'trace_store');
    res.setHeader('X-Gateway-Trace-Persisted', 'none');
    sendJson(res, 503, undefined);
    return 503;
  }
  const known = err instanceof GatewayError ? err : unreachable ? new GatewayError('database_unavailable') : null;
  if (!known) ctx.log.error({ err }, 'unexpected error');
  const code = known?.code ?? 'internal_error';
  const english = known?.message ?? ERRORS.internal_error.message;
  const message = ctx.locale ? localizedError(ctx.locale, code, english) : english;
  const body: ErrorBody = { error: { code, message, request_id: ctx.requestId } };
  const status = known?.status ?? 500;
  if (res.headersSent) {
    res.destroy();
    return status;
  }
  sendJson(res, status, body, known?.headers ?? {});
  return status;
}
