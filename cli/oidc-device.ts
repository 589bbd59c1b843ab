// Signing a person in with the device authorization grant (RFC 8628) at the identity provider the
// gateway names: its protected resource metadata (RFC 9728) gives the resource and the issuer, the
// issuer's metadata (RFC 8414, else OpenID discovery) the endpoints; then the code is shown and the
// token endpoint polled, honouring `interval` and `slow_down`, until the person confirms or it expires.
import { UsageError } from './errors.js';
import { IssuerRefusal } from './errors.js';
import { getJson, isTokenResponse, postForm, type TokenResponse } from './oidc-http.js';

export interface SignInTarget {
  /** The gateway's resource identifier: the audience the tokens must carry (RFC 8707). */
  readonly resource: string;
  readonly issuer: string;
  readonly scopes: readonly string[];
  readonly deviceEndpoint: string;
  readonly tokenEndpoint: string;
}

export interface DeviceGrant {
  readonly device_code: string;
  readonly user_code: string;
  readonly verification_uri: string;
  readonly verification_uri_complete?: string;
  readonly expires_in: number;
  readonly interval?: number;
}

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : []);

export async function discoverSignIn(gatewayUrl: string): Promise<SignInTarget> {
  const prm = await getJson(`${gatewayUrl}/.well-known/oauth-protected-resource`);
  const issuer = strings(prm?.authorization_servers)[0];
  if (!prm || typeof prm.resource !== 'string' || issuer === undefined)
    throw new UsageError(
      `the gateway at ${gatewayUrl} names no identity provider (GATEWAY_OIDC_ISSUER is unset there); log in with --token`,
    );
  const meta = await issuerMetadata(issuer);
  if (typeof meta.device_authorization_endpoint !== 'string')
    throw new UsageError(`the identity provider ${issuer} does not offer the device authorization grant (RFC 8628)`);
  if (typeof meta.token_endpoint !== 'string') throw new UsageError(`the identity provider ${issuer} names no token endpoint`);
  return {
    resource: prm.resource,
    issuer,
    scopes: strings(prm.scopes_supported),
    deviceEndpoint: meta.device_authorization_endpoint,
    tokenEndpoint: meta.token_endpoint,
  };
}

/** RFC 8414 (the well-known path inserted before the issuer's path), then OpenID discovery; `issuer` must match exactly. */
async function issuerMetadata(issuer: string): Promise<Record<string, unknown>> {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/+$/, '');
  for (const url of [
    `${u.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`,
  ]) {
    const meta = await getJson(url);
    if (meta === null) continue;
    if (meta.issuer !== issuer) throw new UsageError(`${url} names the issuer ${JSON.stringify(meta.issuer)}, not ${issuer}`);
    return meta;
  }
  throw new UsageError(`the identity provider ${issuer} publishes no metadata (RFC 8414 or OpenID discovery)`);
}

/** The device authorization request: the codes to show the person. */
export async function startDeviceGrant(target: SignInTarget, clientId: string, scope: string): Promise<DeviceGrant> {
  const answer = await postForm<DeviceGrant>(target.deviceEndpoint, { client_id: clientId, scope, resource: target.resource });
  if (!answer.ok)
    throw new IssuerRefusal(answer.error, `${target.issuer} refused the sign-in request: ${answer.description ?? answer.error}`);
  const g = answer.body;
  if (typeof g.device_code !== 'string' || typeof g.user_code !== 'string' || typeof g.verification_uri !== 'string')
    throw new IssuerRefusal('invalid_response', `${target.issuer} answered the device authorization request without its codes`);
  return g;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the token endpoint until the person confirms, declines, or the code expires (RFC 8628 section 3.5). */
export async function pollDeviceGrant(target: SignInTarget, clientId: string, grant: DeviceGrant): Promise<TokenResponse> {
  let interval = Math.max(1, grant.interval ?? 5);
  const deadline = Date.now() + grant.expires_in * 1000;
  const expired = new UsageError('the code expired before the sign-in was confirmed; run gatewayctl login --oidc again');
  for (;;) {
    await sleep(interval * 1000);
    if (Date.now() >= deadline) throw expired;
    const answer = await postForm<TokenResponse>(target.tokenEndpoint, {
      grant_type: DEVICE_GRANT,
      device_code: grant.device_code,
      client_id: clientId,
      resource: target.resource,
    });
    if (answer.ok) {
      if (!isTokenResponse(answer.body)) throw new IssuerRefusal('invalid_response', `${target.issuer} answered without an access token`);
      return answer.body;
    }
    if (answer.error === 'authorization_pending') continue;
    if (answer.error === 'slow_down') {
      interval += 5;
      continue;
    }
    if (answer.error === 'expired_token') throw expired;
    if (answer.error === 'access_denied') throw new UsageError(`the sign-in was declined at ${target.issuer}`);
    throw new IssuerRefusal(answer.error, `${target.issuer} refused the sign-in: ${answer.description ?? answer.error}`);
  }
}
