// The ledger's hash definitions, shared by the daemon and by gatewayctl's local checks.
//
//   content_hash   = "sha256:" + hex(SHA-256("gw.trace.content.v1\0" || salt || JCS(content)))
//   integrity_hash = "sha256:" + hex(SHA-256(JCS(header)))
//
// where JCS is RFC 8785 and `header` is every column of the ledger row except integrity_hash
// itself, with timestamps as ISO 8601 UTC strings (millisecond precision) and `prev_hash` the
// integrity_hash of the previous row of the same project and stream (GENESIS_HASH for the first).
// The salt is random per trace and deleted with the content, so a purged content hash reveals
// nothing guessable about what it committed to.
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

export const HASH_PREFIX = 'sha256:';
export const GENESIS_HASH = HASH_PREFIX + '0'.repeat(64);
const CONTENT_TAG = Buffer.from('gw.trace.content.v1\0', 'utf8');

export function entryHash(header: Record<string, unknown>): string {
  return HASH_PREFIX + createHash('sha256').update(canonicalJson(header), 'utf8').digest('hex');
}

export function contentHash(salt: Buffer, content: unknown): string {
  return contentHashOfText(salt, canonicalJson(content));
}

/** contentHash of content whose canonical JSON is already made. */
export function contentHashOfText(salt: Buffer, canonical: string): string {
  return HASH_PREFIX + createHash('sha256').update(CONTENT_TAG).update(salt).update(canonical, 'utf8').digest('hex');
}

export function isIntegrityHash(value: string): boolean {
  return /^sha256:[0-9a-f]{64}$/.test(value);
}
