// Validates one access token with jose: its issuer (checked first, so a stranger's token never makes
// the gateway fetch keys), an allowed asymmetric algorithm, the signature against the issuer's keys,
// aud equal to this gateway's resource identifier (RFC 8707), exp/nbf within the clock skew, and
// the required scopes. A refusal carries the RFC 6750 error and a description a client can act on.
import { decodeJwt, errors, type JWTPayload, jwtVerify } from 'jose';
import type { IdentityConfig } from '../config-identity.js';
import { IssuerUnreachable } from './guarded-fetch.js';
import type { IssuerKeys } from './jwks.js';

export type TokenVerdict =
  | { ok: true; payload: JWTPayload }
  | { ok: false; error: 'invalid_token' | 'insufficient_scope'; description: string };

const refuse = (description: string): TokenVerdict => ({ ok: false, error: 'invalid_token', description });

export async function verifyAccessToken(token: string, keys: IssuerKeys, c: IdentityConfig, resource: string): Promise<TokenVerdict> {
  let unverified: JWTPayload;
  try {
    unverified = decodeJwt(token);
  } catch {
    return refuse('the token is not a well-formed JWT');
  }
  if (unverified.iss !== c.issuer) return refuse(`the token was issued by ${JSON.stringify(unverified.iss ?? null)}, not by ${c.issuer}`);
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, keys.getKey, {
      issuer: c.issuer,
      audience: resource,
      algorithms: [...c.algorithms],
      clockTolerance: c.clockSkewSeconds,
      requiredClaims: ['exp', 'sub'],
    }));
  } catch (err) {
    return refuse(describe(err, resource));
  }
  const missing = missingScopes(payload, c.requiredScopes);
  if (missing.length > 0) return { ok: false, error: 'insufficient_scope', description: `the token lacks the scope ${missing.join(' ')}` };
  return { ok: true, payload };
}

/** Scopes granted by `scope` (space-separated, RFC 9068) or `scp` (a list or a string, some providers). */
export function grantedScopes(payload: JWTPayload): Set<string> {
  const out = new Set<string>();
  for (const v of [payload.scope, payload.scp]) {
    if (typeof v === 'string') for (const s of v.split(' ')) if (s) out.add(s);
    if (Array.isArray(v)) for (const s of v) if (typeof s === 'string') out.add(s);
  }
  return out;
}

function missingScopes(payload: JWTPayload, required: readonly string[]): string[] {
  const granted = grantedScopes(payload);
  return required.filter((s) => !granted.has(s));
}

/** The client-facing reason of a jose refusal. */
function describe(err: unknown, resource: string): string {
  if (err instanceof IssuerUnreachable) return `the issuer's signing keys cannot be read right now (${err.reason}); try again later`;
  if (err instanceof errors.JWTExpired) return 'the token has expired';
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.claim === 'nbf') return 'the token is not yet valid (nbf)';
    if (err.claim === 'iat') return 'the token was issued in the future (iat)';
    if (err.claim === 'aud') return `the token is not for this resource: aud must be ${resource}`;
    if (err.reason === 'missing') return `the token lacks the ${err.claim} claim`;
    return `the token's ${err.claim} claim is invalid`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the token is signed with an algorithm this gateway does not accept';
  if (err instanceof errors.JWKSNoMatchingKey) return "the token's signing key is not among the issuer's current keys";
  if (err instanceof errors.JWSSignatureVerificationFailed || err instanceof errors.JWKSMultipleMatchingKeys)
    return "the token's signature does not verify";
  return 'the token is not a well-formed JWT';
}
