// Stage 7: the server's own sign-in must be attachable (auth_method none | bearer | header with its
// secret set); otherwise the call fails closed with -32008 (HTTP 403) before anything is sent.
import { authHeaders } from '../../client/upstream-auth.js';
import { McpClientError } from '../../client/errors.js';
import { pass, refuse, type Stage } from './types.js';

export const signInStage: Stage = {
  name: 'sign-in',
  run(ctx) {
    if (ctx.auth === null) return refuse('UPSTREAM_AUTH_UNAVAILABLE', { detail: 'the stored sign-in cannot be decrypted by this daemon' });
    try {
      return pass({ signIn: authHeaders(ctx.auth) });
    } catch (err) {
      if (!(err instanceof McpClientError)) throw err;
      return refuse('UPSTREAM_AUTH_UNAVAILABLE', { detail: err.message, auth_method: ctx.auth.method, kind: err.kind });
    }
  },
};
