// The sign-in a decided message goes upstream with. For most servers it is what the sign-in stage
// attached; a token_exchange server gets the caller's access token exchanged (RFC 8693,
// identity/token-exchange.ts) for one the upstream accepts, sent as Bearer in place of a shared
// secret. Any failure refuses the message (-32008 with `kind`), nothing forwarded: there is no
// secret to fall back to. The issued token goes upstream only: never to the client, a log or a trace.
import { tokenExchangeConfig } from '../../../shared/mcp-schemas.js';
import type { RouteRequest } from '../../http/types.js';
import { ExchangeFailure, upstreamTokensOf } from '../../identity/index.js';
import type { Sql } from '../../db/connect.js';
import { authHeaders, type UpstreamAuth } from '../client/upstream-auth.js';
import { rpcError, type RpcErrorReply, type RpcId } from './rpc.js';

export type SignedIn =
  | { readonly ok: true; readonly auth: UpstreamAuth; readonly headers: Readonly<Record<string, string>> }
  | { readonly ok: false; readonly kind: string; readonly detail: string };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The sign-in of one decided message: `decided` (the stage's headers) unless the server exchanges tokens. */
export async function upstreamSignIn(
  sql: Sql,
  r: RouteRequest,
  serverId: string,
  auth: UpstreamAuth,
  decided: Readonly<Record<string, string>>,
): Promise<SignedIn> {
  if (auth.method !== 'token_exchange') return { ok: true, auth, headers: decided };
  const tokens = upstreamTokensOf(sql);
  if (tokens === null)
    return { ok: false, kind: 'token_exchange_unavailable', detail: 'no identity provider is configured (GATEWAY_OIDC_ISSUER)' };
  const config = tokenExchangeConfig.safeParse(auth.config ?? undefined);
  if (!config.success) return { ok: false, kind: 'token_exchange_unavailable', detail: 'the stored token exchange settings are not valid' };
  const token = BEARER.exec(r.req.headers.authorization ?? '')?.[1];
  if (!r.principal.subject || token === undefined)
    return { ok: false, kind: 'token_exchange_needs_access_token', detail: 'the caller presented no access token to exchange' };
  try {
    const issued = await tokens.exchange(serverId, config.data, { key: r.principal.credentialId, token });
    const bearer: UpstreamAuth = { method: 'bearer', config: { token: issued } };
    return { ok: true, auth: bearer, headers: authHeaders(bearer) };
  } catch (err) {
    if (err instanceof ExchangeFailure) return { ok: false, kind: err.kind, detail: err.message };
    throw err;
  }
}

/** The JSON-RPC refusal of a message whose sign-in failed. */
export function signInRefusal(id: RpcId, failed: Extract<SignedIn, { ok: false }>, data: Record<string, unknown> = {}): RpcErrorReply {
  return rpcError(
    id,
    'UPSTREAM_AUTH_UNAVAILABLE',
    { detail: failed.detail, auth_method: 'token_exchange', kind: failed.kind, ...data },
    `The MCP server's sign-in as the caller failed: ${failed.detail}; the call is refused (fail closed).`,
  );
}
