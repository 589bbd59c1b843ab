// The sign-in of a scan. A token_exchange server takes a caller's identity, but a scan has no
// caller: the gateway signs in as itself, its client credentials at the same authorization server
// for the same resource, audience and scopes (identity/token-exchange.ts ownToken).
import { tokenExchangeConfig } from '../../../shared/mcp-schemas.js';
import type { Sql } from '../../db/connect.js';
import { ExchangeFailure, upstreamTokensOf } from '../../identity/index.js';
import { McpClientError } from '../client/errors.js';
import type { UpstreamAuth } from '../client/upstream-auth.js';

/** `auth` itself, or for token_exchange the gateway's own bearer; auth_unsupported / auth_failed otherwise. */
export async function scanSignIn(sql: Sql, serverId: string, auth: UpstreamAuth): Promise<UpstreamAuth> {
  if (auth.method !== 'token_exchange') return auth;
  const tokens = upstreamTokensOf(sql);
  if (tokens === null) throw new McpClientError('auth_unsupported', 'token_exchange needs an identity provider (GATEWAY_OIDC_ISSUER)');
  const config = tokenExchangeConfig.safeParse(auth.config ?? undefined);
  if (!config.success) throw new McpClientError('auth_unsupported', 'the stored token exchange settings are not valid');
  try {
    return { method: 'bearer', config: { token: await tokens.ownToken(serverId, config.data) } };
  } catch (err) {
    if (err instanceof ExchangeFailure) throw new McpClientError('auth_failed', `the gateway's own token: ${err.message}`);
    throw err;
  }
}
