// The web console (docs/console.md): its built files under /console, and its session routes
// (sign in with an API key, read the session, sign out). The API routes take the session's cookie
// in place of a bearer token (http/auth.ts), so the console calls the same routes as gatewayctl.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { consoleSignInBody } from '../../shared/console-schemas.js';
import { roleAtLeast } from '../../shared/credentials.js';
import { GatewayError } from '../../shared/errors.js';
import { deciderOf } from '../approvals/decider.js';
import type { Deps } from '../deps.js';
import { principalOfToken } from '../http/auth.js';
import { ConsoleFiles } from '../http/console-files.js';
import { clearedCookie, endSession, sessionCookie, sessionOf, startSession, type ConsoleSession } from '../http/console-session.js';
import { originOf } from '../http/origin.js';
import { defineRoute, type Route } from '../http/types.js';

/** What the page learns of its session: who it acts as, whether they may decide approvals, its CSRF token, when it ends. */
function sessionBody(s: ConsoleSession) {
  const p = s.principal;
  return {
    credential: { id: p.credentialId, name: p.name, kind: p.kind, role: p.role, user_id: p.userId },
    subject: p.subject ? { issuer: p.subject.issuer, sub: p.subject.sub } : null,
    may_decide: roleAtLeast(p.role, 'admin') && deciderOf(p) !== null,
    project_id: p.projectId,
    csrf_token: s.csrfToken,
    expires_at: s.expiresAt,
    idle_expires_at: s.idleExpiresAt,
  };
}

export function consoleRoutes(deps: Deps, files = new ConsoleFiles()): Route[] {
  const own = () => originOf(deps.publicUrl());
  // Secure when the browser reaches the gateway over TLS: directly, or through the https public URL.
  const secure = (req: IncomingMessage) => (req.socket as TLSSocket).encrypted === true || deps.publicUrl().startsWith('https:');
  const page = (name: string): Route => ({
    method: 'GET',
    path: name === '' ? '/console' : '/console/:file',
    summary: name === '' ? 'The web console' : 'A file of the web console',
    description: 'Served with a strict Content-Security-Policy; an unknown name is 404.',
    auth: 'public',
    async handler(r) {
      const file = name === '' ? '' : (r.params.file ?? '');
      return { stream: (res) => files.serve(file, r.req, res) };
    },
  });
  return [
    page(''),
    page(':file'),
    defineRoute({
      method: 'POST',
      path: '/api/v1/console/session',
      summary: 'Sign in to the web console with an API key',
      description:
        'Checks the key as a bearer token is checked and sets an HttpOnly, SameSite=Strict session cookie (Secure behind TLS). '
        + 'The answer carries the CSRF token that state-changing requests of the session send in X-Gateway-CSRF.',
      auth: 'public',
      body: consoleSignInBody,
      async handler(r) {
        const origin = own();
        const sent = r.req.headers.origin?.toLowerCase();
        if (origin === null || (sent !== undefined && sent !== origin)) throw new GatewayError('origin_not_allowed');
        const principal = await principalOfToken(deps.sql, r.body.key.trim());
        if (principal.kind === 'extension') throw new GatewayError('forbidden', 'An extension key cannot sign in to the console.');
        const { idleSeconds, maxSeconds } = deps.config.consoleSession;
        const { id, session } = await startSession(deps.sql, principal, { origin, idleSeconds, maxSeconds });
        return { status: 201, body: sessionBody(session), headers: { 'Set-Cookie': sessionCookie(id, maxSeconds, secure(r.req)) } };
      },
    }),
    {
      method: 'GET',
      path: '/api/v1/console/session',
      summary: 'The web console session of the request (its cookie)',
      description: '401 when the cookie names no live session (unknown, signed out, idle, past its absolute expiry, or its key revoked).',
      auth: 'public',
      async handler(r) {
        return { status: 200, body: sessionBody(await sessionOf(deps.sql, r.req)) };
      },
    },
    {
      method: 'DELETE',
      path: '/api/v1/console/session',
      summary: 'Sign out of the web console',
      description: 'Ends the session of the cookie (X-Gateway-CSRF and the Origin of the console required) and clears the cookie.',
      auth: 'public',
      async handler(r) {
        await endSession(deps.sql, r.req, own());
        return { status: 204, headers: { 'Set-Cookie': clearedCookie(secure(r.req)) } };
      },
    },
  ];
}
