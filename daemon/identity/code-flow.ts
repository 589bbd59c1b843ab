// The console's sign-in by the issuer: OpenID Connect's authorization code flow with PKCE (S256),
// state and nonce. It builds the authorization request, redeems the code at the token endpoint
// (through the address guard the issuer's metadata is read through), validates the ID token with
// jose (iss, aud = the console's client id, azp, exp, the nonce; signature by the issuer's keys),
// then maps its claims to project and role exactly as an access token's are (claims.ts).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { errors, type JWTPayload, jwtVerify } from 'jose';
import type { ConsoleOidcConfig } from '../config-console.js';
import type { IdentityConfig } from '../config-identity.js';
import { identityOf, type TokenIdentity } from './claims.js';
import { type FetchDeps, IssuerUnreachable, postForm } from './guarded-fetch.js';
import type { IssuerKeys } from './jwks.js';

/** Why a sign-in failed, as the sign-in page names it (console/sign-in.ts holds the messages). */
export type SignInFailure =
  | 'sign_in_expired'
  | 'state_mismatch'
  | 'provider_refused'
  | 'issuer_unreachable'
  | 'sign_in_busy'
  | 'code_refused'
  | 'id_token_invalid'
  | 'nonce_mismatch'
  | 'claims_refused'
  | 'no_role'
  | 'unknown_project';

export type RedeemVerdict = { ok: true; identity: TokenIdentity } | { ok: false; failure: SignInFailure; reason: string };

/** The secrets of one sign-in, kept with its pre-session until the browser returns. */
export interface PendingSignIn {
  readonly state: string;
  readonly nonce: string;
  readonly verifier: string;
}

const random = () => randomBytes(32).toString('base64url');

export function newPendingSignIn(): PendingSignIn {
  return { state: random(), nonce: random(), verifier: random() };
}

/** The PKCE S256 challenge of a verifier (RFC 7636 4.2). */
export function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}

/** Constant-time equality of two strings (state, nonce). */
export function sameSecret(a: string, b: unknown): boolean {
  if (typeof b !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** An error code from the issuer, if it is a plain token (RFC 6749 5.2); else `unknown`. */
export function safeCode(v: unknown): string {
  return typeof v === 'string' && /^[\x20-\x21\x23-\x5b\x5d-\x7e]{1,80}$/.test(v) ? v : 'unknown';
}

const fail = (failure: SignInFailure, reason: string): RedeemVerdict => ({ ok: false, failure, reason });

export class CodeFlow {
  constructor(
    private readonly identity: IdentityConfig,
    private readonly client: ConsoleOidcConfig,
    private readonly keys: IssuerKeys,
    private readonly deps: FetchDeps,
  ) {}

  get issuer(): string {
    return this.identity.issuer;
  }

  /** Where to send the browser (IssuerUnreachable when the issuer's metadata cannot be read). */
  async authorizationUrl(p: PendingSignIn, redirectUri: string): Promise<string> {
    const meta = await this.keys.readMetadata();
    if (meta.authorizationEndpoint === null) throw new IssuerUnreachable(`${this.issuer} names no authorization_endpoint`);
    const url = new URL(meta.authorizationEndpoint);
    const params = {
      response_type: 'code',
      client_id: this.client.clientId,
      redirect_uri: redirectUri,
      scope: this.client.scopes.join(' '),
      state: p.state,
      nonce: p.nonce,
      code_challenge: challengeOf(p.verifier),
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.href;
  }

  /** Redeems the code and validates what comes back, down to who signed in. */
  async redeem(code: string, p: PendingSignIn, redirectUri: string): Promise<RedeemVerdict> {
    let idToken: string;
    try {
      const meta = await this.keys.readMetadata();
      if (meta.tokenEndpoint === null) return fail('issuer_unreachable', `${this.issuer} names no token_endpoint`);
      const form: Record<string, string> = { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: p.verifier };
      const headers: Record<string, string> = {};
      // client_secret_basic (RFC 6749 2.3.1: each part form-encoded first); a public client names itself.
      if (this.client.clientSecret === null) form.client_id = this.client.clientId;
      else
        headers.authorization = `Basic ${Buffer.from(`${formEncode(this.client.clientId)}:${formEncode(this.client.clientSecret)}`).toString('base64')}`;
      const answer = await postForm(this.deps, meta.tokenEndpoint.href, form, headers);
      if (answer.status !== 200) return fail('code_refused', `the token endpoint answered ${answer.status} ${safeCode(answer.body.error)}`);
      if (typeof answer.body.id_token !== 'string') return fail('code_refused', 'the token endpoint answered without an id_token');
      idToken = answer.body.id_token;
    } catch (err) {
      if (err instanceof IssuerUnreachable) return fail('issuer_unreachable', err.reason);
      throw err;
    }
    const checked = await this.verifyIdToken(idToken, p.nonce);
    if (!checked.ok) return checked;
    const claims = identityOf(checked.payload, this.identity);
    if (!claims.ok) return fail('claims_refused', claims.description);
    if (claims.identity.role === null) return fail('no_role', `the ${this.identity.roleClaim.join('.')} claim grants no role`);
    return { ok: true, identity: claims.identity };
  }

  private async verifyIdToken(
    token: string,
    nonce: string,
  ): Promise<{ ok: true; payload: JWTPayload } | { ok: false; failure: SignInFailure; reason: string }> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.keys.getKey, {
        issuer: this.identity.issuer,
        audience: this.client.clientId,
        algorithms: [...this.identity.algorithms],
        clockTolerance: this.identity.clockSkewSeconds,
        requiredClaims: ['exp', 'iat', 'sub', 'nonce'],
      }));
    } catch (err) {
      if (err instanceof IssuerUnreachable) return { ok: false, failure: 'issuer_unreachable', reason: err.reason };
      return { ok: false, failure: 'id_token_invalid', reason: describe(err) };
    }
    // OpenID Connect Core 3.1.3.7: with several audiences, azp names this client.
    if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== this.client.clientId)
      return { ok: false, failure: 'id_token_invalid', reason: 'the ID token has several audiences and azp is not this client' };
    if (!sameSecret(nonce, payload.nonce)) return { ok: false, failure: 'nonce_mismatch', reason: 'the ID token carries another nonce' };
    return { ok: true, payload };
  }
}

const formEncode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');

function describe(err: unknown): string {
  if (err instanceof errors.JWTExpired) return 'the ID token has expired';
  if (err instanceof errors.JWTClaimValidationFailed)
    return `the ID token's ${err.claim} claim is ${err.reason === 'missing' ? 'missing' : 'invalid'}`;
  if (err instanceof errors.JOSEAlgNotAllowed) return 'the ID token is signed with an algorithm this gateway does not accept';
  if (err instanceof errors.JWKSNoMatchingKey) return "the ID token's signing key is not among the issuer's keys";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "the ID token's signature does not verify";
  return 'the ID token is not a well-formed JWT';
}
