// Reads a JSON request body with a size limit. An empty body is {} (routes that take no body are
// called without one); anything else must be JSON, and hold only text the database can store (no
// lone surrogate, and no NUL unless the route stores NUL safely itself: shared/text.ts), so that no
// trace of it can fail the batch it is written in.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../shared/errors.js';
import { holdsUnstorableText } from '../../shared/text.js';

export async function readJsonBody(req: IncomingMessage, limit: number, options: { allowNul?: boolean } = {}): Promise<unknown> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new GatewayError('payload_too_large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new GatewayError('payload_too_large');
    chunks.push(chunk);
  }
  if (size === 0) return {};
  const type = String(req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) throw new GatewayError('unsupported_media_type');
  const text = Buffer.concat(chunks).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GatewayError('validation_error', 'The request body is not valid JSON.');
  }
  // Only a \u escape can put either into a parsed string; most bodies have none and are not walked.
  if (text.includes('\\u') && holdsUnstorableText(body, options)) {
    throw new GatewayError('validation_error', `The request body holds ${options.allowNul ? '' : 'a NUL character or '}a lone UTF-16 surrogate (a \\u escape), which cannot be stored.`);
  }
  return body;
}
