// Reads a JSON request body with a size limit. An empty body is {} (routes that take no body are
// called without one); anything else must be JSON within the limits of json-check.ts (nesting
// depth, finite numbers, and only text the database can store: no lone surrogate, and no NUL unless
// the route stores NUL safely itself), so that no trace of it can fail the batch it is written in.
// No route decodes a content encoding (415), and JSON is UTF-8 (RFC 8259): bytes that are not are
// refused, never replaced, so what is stored and hashed is what the client sent.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../shared/errors.js';
import { quoted } from '../../shared/text.js';
import { jsonBodyProblem } from './json-check.js';

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Refuses a Content-Encoding other than identity: the body would reach JSON.parse still encoded. */
function checkEncoding(header: string | undefined): void {
  if (header === undefined) return;
  if (header.split(',').every((token) => token.trim().toLowerCase() === 'identity')) return;
  throw new GatewayError(
    'unsupported_media_type',
    `Content-Encoding ${quoted(header)} is not accepted: send the request body unencoded (identity).`,
  );
}

export async function readJsonBody(req: IncomingMessage, limit: number, options: { allowNul?: boolean } = {}): Promise<unknown> {
  checkEncoding(req.headers['content-encoding']);
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (Number.isFinite(declared) && declared > limit) throw new GatewayError('payload_too_large');
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of req as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) throw new GatewayError('payload_too_large');
      chunks.push(chunk);
    }
  } catch (err) {
    // The body was cut off (the client went away, or the parser refused its framing: client-error.ts).
    if (err instanceof GatewayError) throw err;
    throw new GatewayError('malformed_request', 'The request body ended before it was complete or is not well-formed.');
  }
  if (size === 0) return {};
  const type = String(req.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();
  if (type !== 'application/json' && !type.endsWith('+json')) throw new GatewayError('unsupported_media_type');
  let text: string;
  try {
    text = utf8.decode(Buffer.concat(chunks));
  } catch {
    throw new GatewayError('validation_error', 'Invalid request: body: not valid UTF-8 (JSON text is UTF-8, RFC 8259)');
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new GatewayError('validation_error', 'The request body is not valid JSON.');
  }
  const problem = jsonBodyProblem(body, { allowNul: options.allowNul, skipText: !text.includes('\\u') });
  if (problem) throw new GatewayError('validation_error', `Invalid request: body: ${problem}`);
  return body;
}
