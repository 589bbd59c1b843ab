// Taking an upstream MCP server's answer body within a byte bound: the one way the client
// (http-exchange.ts) and the proxy (proxy/forward.ts) read a whole body, or throw one away.
import type { Dispatcher } from 'undici';
import { ByteBuffer } from './byte-buffer.js';
import { McpClientError } from './errors.js';
import { releaseAfterRefusal } from './release-memory.js';

export type Body = Dispatcher.ResponseData['body'];

/** A refusal is read only for diagnostics and the era decision; its body is never large legitimately. */
export const REFUSAL_BODY_LIMIT = 64 * 1024;

/**
 * A whole body of at most `limit` bytes: refused on its declared length before a byte is read,
 * else read until one byte too many, then destroyed (the upstream request ends with it). The bytes
 * go into one buffer (byte-buffer.ts), not a list of socket-sized chunks, and a refusal asks for the
 * dead ones to be collected (release-memory.ts): a hostile 200 MB answer leaves no resident trace.
 */
export async function readBounded(body: Body, limit: number, declared: string | string[] | undefined): Promise<Buffer> {
  if (typeof declared === 'string' && Number(declared) > limit) {
    body.destroy();
    throw new McpClientError('too_large', `an upstream JSON answer exceeds ${limit} bytes`);
  }
  const kept = new ByteBuffer(limit);
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (!kept.append(chunk)) {
      body.destroy();
      releaseAfterRefusal(kept.length);
      throw new McpClientError('too_large', `an upstream JSON answer exceeds ${limit} bytes`);
    }
  }
  return kept.bytes();
}

/** A bounded body that must be JSON: its bytes as they came and the value they hold. */
export async function readBoundedJson(
  body: Body,
  limit: number,
  declared: string | string[] | undefined,
): Promise<{ raw: Buffer; value: unknown }> {
  const raw = await readBounded(body, limit, declared);
  try {
    return { raw, value: JSON.parse(raw.toString('utf8')) };
  } catch {
    throw new McpClientError('invalid_response', 'the upstream answer is not JSON');
  }
}

/** Reads what is left of a body and drops it, at most REFUSAL_BODY_LIMIT bytes (a longer one is cut off); never throws. */
export async function discard(body: Body): Promise<void> {
  await body.dump({ limit: REFUSAL_BODY_LIMIT }).catch(() => undefined);
}
