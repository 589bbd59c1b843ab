// Bearer tokens: 256 random bits behind a recognisable prefix, shown once, stored as SHA-256
// (a fast hash is right for high-entropy secrets), compared in constant time.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CredentialKind } from '../../shared/credentials.js';

export const TOKEN_PREFIX: Record<CredentialKind, string> = {
  project_key: 'ggp_',
  user_token: 'ggu_',
  extension: 'gge_',
};

export function newToken(kind: CredentialKind): string {
  return TOKEN_PREFIX[kind] + randomBytes(32).toString('base64url');
}

export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Constant-time equality of two token hashes. */
export function sameHash(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** What a list may show of a token: its prefix and first characters, enough to recognise it. */
export function displayPrefix(token: string): string {
  return token.slice(0, 10);
}

export function looksLikeToken(value: string): boolean {
  return /^gg[pue]_[A-Za-z0-9_-]{43}$/.test(value);
}
