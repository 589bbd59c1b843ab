// The web console's sign-in by the organisation's identity provider (docs/console.md): the sign-in
// page links to /start, which keeps a pre-session (console-pending.ts) and sends the browser to the
// issuer; the issuer sends it back to /callback, which takes the pre-session (once), checks the
// state, redeems the code and validates the ID token (identity/code-flow.ts), and opens the same
// console session a pasted key opens. Every failure ends on the sign-in page with a reason code
// the page words, no session, and a log line without tokens, codes or claims' raw values.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { consoleOidcCallbackQuery } from '../../shared/console-schemas.js';
import { GatewayError } from '../../shared/errors.js';
import type { Deps } from '../deps.js';
import { clearedPendingCookie, MAX_PENDING, PENDING_PATH, pendingCookie, savePending, takePending } from '../http/console-pending.js';
import { sessionCookie, startSession } from '../http/console-session.js';
import { originOf } from '../http/origin.js';
import { defineRoute, type Route } from '../http/types.js';
import { codeFlowOf, newPendingSignIn, principalOfTokenIdentity, type SignInFailure } from '../identity/index.js';
import { IssuerUnreachable } from '../identity/guarded-fetch.js';
import { safeCode, sameSecret } from '../identity/code-flow.js';

export const CALLBACK_PATH = `${PENDING_PATH}/callback`;
const CONSOLE_PATH = '/console';

/** A 302 to `location` with the given cookies (a Reply carries one value per header, so this writes its own). */
function redirect(location: string, cookies: string[]) {
  return {
    stream: async (res: ServerResponse) => {
      res.statusCode = 302;
      res.setHeader('Location', location);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Set-Cookie', cookies);
      res.end();
    },
  };
}

export function consoleOidcRoutes(deps: Deps): Route[] {
  const flow = () => {
    const found = codeFlowOf(deps.sql);
    if (found === null)
      throw new GatewayError('not_found', 'Sign-in by an identity provider is not configured (GATEWAY_CONSOLE_OIDC_CLIENT_ID).');
    return found;
  };
  const secure = (req: IncomingMessage) => (req.socket as TLSSocket).encrypted === true || deps.publicUrl().startsWith('https:');
  const redirectUri = () => `${deps.publicUrl()}${CALLBACK_PATH}`;
  const log = deps.log.child({ subsystem: 'console-sign-in' });
  const refused = (req: IncomingMessage, failure: SignInFailure, reason: string) => {
    log.warn({ failure, reason }, 'console sign-in by the identity provider refused');
    return redirect(`${CONSOLE_PATH}?sign_in_error=${failure}`, [clearedPendingCookie(secure(req))]);
  };

  return [
    {
      method: 'GET',
      path: PENDING_PATH,
      summary: 'Whether the web console offers sign-in by the identity provider',
      description: 'The issuer people sign in with; 404 when GATEWAY_CONSOLE_OIDC_CLIENT_ID is unset.',
      auth: 'public',
      async handler() {
        return { status: 200, body: { issuer: flow().issuer, start: `${PENDING_PATH}/start` } };
      },
    },
    {
      method: 'GET',
      path: `${PENDING_PATH}/start`,
      summary: 'Begin signing in to the web console with the identity provider',
      description:
        'Redirects the browser to the issuer (authorization code flow with PKCE S256, state and nonce) and sets a short-lived '
        + 'HttpOnly pre-session cookie. When the issuer cannot be read, redirects to the sign-in page with sign_in_error.',
      auth: 'public',
      async handler(r) {
        const f = flow();
        const pending = newPendingSignIn();
        let to: string;
        try {
          to = await f.authorizationUrl(pending, redirectUri());
        } catch (err) {
          if (err instanceof IssuerUnreachable) return refused(r.req, 'issuer_unreachable', err.reason);
          throw err;
        }
        const id = await savePending(deps.sql, pending);
        if (id === null) return refused(r.req, 'sign_in_busy', `${MAX_PENDING} sign-ins are already under way`);
        return redirect(to, [pendingCookie(id, secure(r.req))]);
      },
    },
    defineRoute({
      method: 'GET',
      path: CALLBACK_PATH,
      summary: 'Where the identity provider returns the browser after sign-in',
      description:
        'Takes the pre-session (once), checks state, redeems the code, validates the ID token (issuer, audience = the console '
        + 'client id, expiry, nonce) and maps its claims to project and role; then sets the console session cookie and redirects '
        + 'to /console. Any failure redirects to /console?sign_in_error=<reason> with no session.',
      auth: 'public',
      query: consoleOidcCallbackQuery,
      async handler(r) {
        const f = flow();
        const q = r.query;
        const pending = await takePending(deps.sql, r.req);
        if (pending === null)
          return refused(r.req, 'sign_in_expired', 'no sign-in under way for this browser (expired, used, or begun elsewhere)');
        if (!sameSecret(pending.state, q.state)) return refused(r.req, 'state_mismatch', 'the state does not match the sign-in under way');
        if (q.error !== undefined) return refused(r.req, 'provider_refused', `the issuer answered ${safeCode(q.error)}`);
        if (q.iss !== undefined && q.iss !== f.issuer) return refused(r.req, 'state_mismatch', 'the iss parameter names another issuer');
        if (q.code === undefined) return refused(r.req, 'code_refused', 'the issuer sent no code');
        const verdict = await f.redeem(q.code, pending, redirectUri());
        if (!verdict.ok) return refused(r.req, verdict.failure, verdict.reason);
        const principal = await principalOfTokenIdentity(deps.sql, verdict.identity);
        if (principal === null) return refused(r.req, 'unknown_project', 'the claims name a project that does not exist here');
        const origin = originOf(deps.publicUrl());
        if (origin === null) throw new GatewayError('origin_not_allowed');
        // The role is the claims' at sign-in: a shorter life bounds how long a change at the provider takes to apply.
        const { idleSeconds } = deps.config.consoleSession;
        const maxSeconds = Math.min(deps.config.consoleSession.maxSeconds, deps.config.consoleOidc?.sessionMaxSeconds ?? Infinity);
        const { id } = await startSession(deps.sql, principal, { origin, idleSeconds, maxSeconds });
        log.info(
          { credentialId: principal.credentialId, projectId: principal.projectId, role: principal.role },
          'console sign-in by the identity provider',
        );
        return redirect(CONSOLE_PATH, [sessionCookie(id, maxSeconds, secure(r.req)), clearedPendingCookie(secure(r.req))]);
      },
    }),
  ];
}
