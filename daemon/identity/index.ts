// The identity module's face: build the resource server for a daemon (app.ts), find it from the
// pool (http/auth.ts, as the state cache is found), and turn a bearer JWT into a Principal.
import type { Dispatcher } from 'undici';
import type { Principal } from '../../shared/credentials.js';
import type { ConsoleOidcConfig } from '../config-console.js';
import type { IdentityConfig } from '../config-identity.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import { CodeFlow } from './code-flow.js';
import { IssuerKeys } from './jwks.js';
import { principalOfToken } from './principal.js';
import { looksLikeJwt, ResourceServer } from './resource-server.js';
import { UpstreamTokens } from './token-exchange.js';

export { CodeFlow, type PendingSignIn, newPendingSignIn, type SignInFailure } from './code-flow.js';
export { principalOfIdentity, principalOfToken as principalOfTokenIdentity } from './principal.js';
export { looksLikeJwt, METADATA_PATH, PROXY_PATH, ResourceServer } from './resource-server.js';
export { ExchangeFailure, UpstreamTokens } from './token-exchange.js';

export interface IdentityDeps {
  /** From createUpstreamDispatcher: the issuer is reached through the same address guard as upstreams. */
  readonly dispatcher: Dispatcher;
  readonly timeoutMs: number;
  readonly publicUrl: () => string;
  readonly log: Logger;
}

/**
 * The resource server of `config` and, with a console client, the console's sign-in by the same
 * issuer (one key set for both); the keys start loading now (a failure is retried on use).
 */
export function startResourceServer(
  config: IdentityConfig,
  deps: IdentityDeps,
  consoleClient: ConsoleOidcConfig | null = null,
): { resourceServer: ResourceServer; codeFlow: CodeFlow | null } {
  const log = deps.log.child({ subsystem: 'identity' });
  const fetchDeps = { dispatcher: deps.dispatcher, timeoutMs: deps.timeoutMs };
  const keys = new IssuerKeys(config.issuer, fetchDeps, config.jwksRefreshFloorMs, log);
  void keys.start();
  const codeFlow = consoleClient === null ? null : new CodeFlow(config, consoleClient, keys, fetchDeps);
  return { resourceServer: new ResourceServer(config, keys, deps.publicUrl), codeFlow };
}

const attached = new WeakMap<object, ResourceServer>();
const flows = new WeakMap<object, CodeFlow>();

export function attachCodeFlow(pool: object, flow: CodeFlow): void {
  flows.set(pool, flow);
}

/** The console's sign-in by the issuer; null when GATEWAY_CONSOLE_OIDC_CLIENT_ID is unset. */
export function codeFlowOf(pool: object): CodeFlow | null {
  return flows.get(pool) ?? null;
}

const upstreamTokens = new WeakMap<object, UpstreamTokens>();

/** Attaches the resource server, and the token exchange at the same issuer for upstream identity. */
export function attachResourceServer(pool: object, rs: ResourceServer, deps: IdentityDeps): void {
  attached.set(pool, rs);
  const log = deps.log.child({ subsystem: 'upstream-identity' });
  upstreamTokens.set(pool, new UpstreamTokens(rs.config.issuer, { dispatcher: deps.dispatcher, timeoutMs: deps.timeoutMs }, log));
}

/** The daemon's token exchange for upstream identity; null when GATEWAY_OIDC_ISSUER is unset. */
export function upstreamTokensOf(pool: object): UpstreamTokens | null {
  return upstreamTokens.get(pool) ?? null;
}

/** The daemon's resource server; null when GATEWAY_OIDC_ISSUER is unset. */
export function resourceServerOf(pool: object): ResourceServer | null {
  return attached.get(pool) ?? null;
}

/** Whether a bearer is for the resource server: a JWT while an issuer is configured. */
export function isAccessToken(pool: object, bearer: string): boolean {
  return attached.has(pool) && looksLikeJwt(bearer);
}

/** The principal of a bearer JWT, or the 401/403 refusal with its WWW-Authenticate challenge. */
export async function authenticateAccessToken(sql: Sql, token: string): Promise<Principal> {
  const rs = resourceServerOf(sql)!;
  const identity = await rs.identify(token);
  const principal = await principalOfToken(sql, identity);
  if (principal === null)
    throw rs.refusal('invalid_token', `the token names project ${JSON.stringify(identity.projectId)}, which does not exist here`);
  return principal;
}

/** The challenge headers a 401 on `pathname` carries (the protected resource's paths only). */
export function challengeHeaders(pool: object, pathname: string): Record<string, string> {
  const rs = attached.get(pool);
  return rs?.protects(pathname) ? { 'WWW-Authenticate': rs.challenge() } : {};
}
