// Reads a JSON request body with a size limit. An empty body is {} (routes that take no body are
// called without one); anything else must be JSON.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../shared/errors.js';

export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
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
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new GatewayError('validation_error', 'The request body is not valid JSON.');
  }
}
