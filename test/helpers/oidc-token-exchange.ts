// Token exchange (RFC 8693) for the test provider: oidc-provider has none built in, so it is
// registered with the provider's documented registerGrantType. The subject token is verified as a
// JWT against the provider's own keys (issuer, signature, expiry); the token issued is a JWT access
// token for the requested resource, signed with the provider's current key, for the subject's `sub`
// and naming the exchanging client as actor. Exchanges are counted; a test can make the grant
// refuse, and set the lifetime of what it issues.
import { randomUUID } from 'node:crypto';
import { createLocalJWKSet, importJWK, type JWK, jwtVerify, SignJWT } from 'jose';
import { errors, type Provider } from 'oidc-provider';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const PARAMETERS = ['audience', 'resource', 'scope', 'requested_token_type', 'subject_token', 'subject_token_type'];

/** One exchange the provider answered (issued or refused). */
export interface ExchangeSeen {
  readonly clientId: string;
  readonly sub: string | null;
  readonly resource: string | null;
  readonly audience: string | null;
  readonly scope: string | null;
  readonly issued: string | null;
}

export interface ExchangeGrant {
  /** Adds the grant to a provider (each rebuilt provider, after a key rotation). */
  register(provider: Provider): void;
  /** Every exchange so far, in order. */
  readonly seen: ExchangeSeen[];
  /** While set, every exchange is refused with invalid_grant and this description. */
  refuse(description: string | null): void;
  /** Lifetime in seconds of the tokens issued from now on (default 300). */
  ttl(seconds: number): void;
}

const publicJwk = ({ d: _d, p: _p, q: _q, dp: _dp, dq: _dq, qi: _qi, ...rest }: JWK): JWK => rest;

export function exchangeGrant(issuer: string, keys: () => readonly JWK[]): ExchangeGrant {
  const seen: ExchangeSeen[] = [];
  let refusal: string | null = null;
  let lifetime = 300;

  const handler = async (ctx: { oidc: { params: Record<string, unknown>; client?: { clientId: string } }; body?: unknown }) => {
    const params = ctx.oidc.params as Record<string, string | undefined>;
    const clientId = ctx.oidc.client!.clientId;
    const record = (sub: string | null, issued: string | null) =>
      seen.push({
        clientId,
        sub,
        resource: params.resource ?? null,
        audience: params.audience ?? null,
        scope: params.scope ?? null,
        issued,
      });
    if (params.subject_token_type !== ACCESS_TOKEN_TYPE) throw new errors.InvalidRequest('subject_token_type must be access_token');
    let sub: string;
    try {
      const verified = await jwtVerify(params.subject_token ?? '', createLocalJWKSet({ keys: keys().map(publicJwk) }), { issuer });
      sub = String(verified.payload.sub);
    } catch {
      record(null, null);
      throw new errors.InvalidGrant('the subject token is not valid');
    }
    if (refusal !== null) {
      record(sub, null);
      throw new errors.InvalidGrant(refusal);
    }
    const key = keys()[0]!;
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({
      client_id: clientId,
      act: { sub: clientId },
      ...(params.scope ? { scope: params.scope } : {}),
    })
      .setProtectedHeader({ alg: 'RS256', kid: key.kid!, typ: 'at+jwt' })
      .setIssuer(issuer)
      .setSubject(sub)
      .setAudience(params.resource ?? params.audience ?? issuer)
      .setIssuedAt(now)
      .setExpirationTime(now + lifetime)
      .setJti(randomUUID())
      .sign(await importJWK(key, 'RS256'));
    record(sub, token);
    ctx.body = {
      access_token: token,
      issued_token_type: ACCESS_TOKEN_TYPE,
      token_type: 'Bearer',
      expires_in: lifetime,
      ...(params.scope ? { scope: params.scope } : {}),
    };
  };

  return {
    register(provider) {
      provider.registerGrantType(TOKEN_EXCHANGE_GRANT, handler as never, PARAMETERS, ['audience', 'resource']);
    },
    seen,
    refuse(description) {
      refusal = description;
    },
    ttl(seconds) {
      lifetime = seconds;
    },
  };
}
