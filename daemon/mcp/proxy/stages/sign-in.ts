// Stage 7: the server's own sign-in must be attachable (auth_method none | bearer | header with its
// secret set); otherwise the call fails closed with -32008 (HTTP 403) before anything is sent. A
// server that takes the caller's identity (token_exchange) needs a caller with an access token: an
// API key has no subject to exchange, and there is no shared secret to fall back to. The exchange
// itself is I/O, made once the call is decided (upstream-sign-in.ts).
import { authHeaders } from '../../client/upstream-auth.js';
import { McpClientError } from '../../client/errors.js';
import { pass, refuse, type Stage } from './types.js';

export const signInStage: Stage = {
  name: 'sign-in',
  run(ctx) {
    if (ctx.auth === null) return refuse('UPSTREAM_AUTH_UNAVAILABLE', { detail: 'the stored sign-in cannot be decrypted by this daemon' });
    if (ctx.auth.method === 'token_exchange') {
      if (!ctx.subject)
        return refuse(
          'UPSTREAM_AUTH_UNAVAILABLE',
          {
            detail: "this server takes the caller's identity by token exchange; call with an access token of the identity provider",
            auth_method: 'token_exchange',
            kind: 'token_exchange_needs_access_token',
          },
          'This MCP server signs in as the caller (token exchange): an API key has no identity to exchange; call with an access token.',
        );
      return pass({ signIn: {} });
    }
    try {
      return pass({ signIn: authHeaders(ctx.auth) });
    } catch (err) {
      if (!(err instanceof McpClientError)) throw err;
      return refuse('UPSTREAM_AUTH_UNAVAILABLE', { detail: err.message, auth_method: ctx.auth.method, kind: err.kind });
    }
  },
};
