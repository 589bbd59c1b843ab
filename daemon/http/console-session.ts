// Web console sessions (docs/console.md): the browser holds a random session id in an HttpOnly,
// SameSite=Strict cookie; the database keeps only the id's SHA-256. A session acts as the credential
// it was opened with (an API key, or the person the identity provider signed in: console-oidc.ts),
// and a state-changing request must carry the session's CSRF token in
// X-Gateway-CSRF and the console's Origin (a cross-site page can set neither).
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Principal, Role } from '../../shared/credentials.js';
import { GatewayError } from '../../shared/errors.js';
import type { Sql } from '../db/connect.js';
import { principalOfIdentity } from '../identity/index.js';
import { principalOfRow, type PrincipalRow } from './principal-row.js';

export const SESSION_COOKIE = 'gateway_console';
export const CSRF_HEADER = 'x-gateway-csrf';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export interface ConsoleSession {
  readonly principal: Principal;
  readonly csrfToken: string;
  readonly expiresAt: string;
  readonly idleExpiresAt: string;
}

/** The session id the request's Cookie header carries, or null (absent or not one this daemon makes). */
export function sessionIdOf(req: IncomingMessage): string | null {
  const header = req.headers.cookie;
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return SESSION_ID.test(value) ? value : null;
    }
  }
  return null;
}

export function hasSessionCookie(req: IncomingMessage): boolean {
  return /(?:^|;)\s*gateway_console=/.test(req.headers.cookie ?? '');
}

const digest = (label: string, id: string): Buffer => createHash('sha256').update(`${label}\u0000${id}`, 'utf8').digest();

/** The CSRF token of a session: derived from its id, so nothing more is stored and it reveals nothing of the id. */
export function csrfTokenOf(id: string): string {
  return digest('csrf', id).toString('base64url');
}

/** Opens a session for a principal whose key was just checked; returns the cookie's value. */
export async function startSession(
  sql: Sql,
  principal: Principal,
  options: { origin: string; idleSeconds: number; maxSeconds: number },
): Promise<{ id: string; session: ConsoleSession }> {
  const id = randomBytes(32).toString('base64url');
  // The credential's sessions that can no longer be used go as it opens a new one (the table stays small).
  await sql`delete from console_sessions where credential_id = ${principal.credentialId} and (ended_at is not null or expires_at < now())`;
  // A person the issuer signed in is kept whole (who, and the role their claims granted at sign-in).
  const who = principal.subject;
  const [row] = await sql<{ expires_at: Date; idle_expires_at: Date }[]>`
    insert into console_sessions (id_hash, project_id, credential_id, origin, idle_seconds, expires_at,
                                  subject_issuer, subject_sub, subject_name, subject_role, subject_agent)
    values (${digest('session', id)}, ${principal.projectId}, ${principal.credentialId}, ${options.origin}, ${options.idleSeconds},
            now() + make_interval(secs => ${options.maxSeconds}),
            ${who?.issuer ?? null}, ${who?.sub ?? null}, ${who?.name ?? null}, ${who ? principal.role : null},
            ${who ? (principal.tokenAgentId ?? null) : null})
    returning expires_at, least(expires_at, last_seen_at + make_interval(secs => idle_seconds)) as idle_expires_at`;
  return {
    id,
    session: { principal, csrfToken: csrfTokenOf(id), expiresAt: iso(row!.expires_at), idleExpiresAt: iso(row!.idle_expires_at) },
  };
}

interface SessionRow extends PrincipalRow {
  subject_issuer: string | null;
  subject_sub: string | null;
  subject_name: string | null;
  subject_role: Role | null;
  subject_agent: string | null;
  origin: string;
  expires_at: Date;
  idle_expires_at: Date;
}

/**
 * The live session of the request's cookie, its idle expiry moved on (401 unauthorized when there
 * is none: unknown, signed out, idle or past its absolute expiry, or its key's credential revoked).
 * A state-changing request is refused (403 csrf_refused) without the session's token and origin.
 */
export async function sessionOf(sql: Sql, req: IncomingMessage): Promise<ConsoleSession> {
  const id = sessionIdOf(req);
  if (id === null) throw new GatewayError('unauthorized', 'No console session: sign in again.');
  const [row] = await sql<SessionRow[]>`
    with s as (
      update console_sessions set last_seen_at = now()
      where id_hash = ${digest('session', id)} and ended_at is null and expires_at > now()
        and last_seen_at + make_interval(secs => idle_seconds) > now()
      returning credential_id, project_id, origin, expires_at, least(expires_at, now() + make_interval(secs => idle_seconds)) as idle_expires_at,
                subject_issuer, subject_sub, subject_name, subject_role, subject_agent)
    select s.credential_id, s.project_id, c.kind, c.role, c.user_id, c.name, coalesce(p.active, false) as stopped,
           s.origin, s.expires_at, s.idle_expires_at, s.subject_issuer, s.subject_sub, s.subject_name, s.subject_role, s.subject_agent
    from s left join credentials c on c.id = s.credential_id and s.subject_sub is null
    left join project_stops p on p.project_id = s.project_id
    where s.subject_sub is not null or (c.id is not null and c.revoked_at is null)`;
  if (!row) throw new GatewayError('unauthorized', 'The console session has ended: sign in again.');
  if (!SAFE_METHODS.has(req.method ?? 'GET')) checkCsrf(req, id, row.origin);
  const principal = principalOfSessionRow(row);
  return { principal, csrfToken: csrfTokenOf(id), expiresAt: iso(row.expires_at), idleExpiresAt: iso(row.idle_expires_at) };
}

function principalOfSessionRow(row: SessionRow): Principal {
  if (row.subject_sub === null) return principalOfRow(row);
  const subject = Object.freeze({ issuer: row.subject_issuer!, sub: row.subject_sub, name: row.subject_name! });
  return principalOfIdentity({ projectId: row.project_id, role: row.subject_role, agentId: row.subject_agent, subject }, row.stopped);
}

/** Ends the request's session (sign-out); the CSRF rule applies. A session already gone is no error. */
export async function endSession(sql: Sql, req: IncomingMessage, origin: string | null): Promise<void> {
  const id = sessionIdOf(req);
  if (id === null) return;
  checkCsrf(req, id, origin);
  await sql`update console_sessions set ended_at = now() where id_hash = ${digest('session', id)} and ended_at is null`;
}

function checkCsrf(req: IncomingMessage, id: string, origin: string | null): void {
  const sent = req.headers[CSRF_HEADER];
  const expected = Buffer.from(csrfTokenOf(id));
  const given = Buffer.from(typeof sent === 'string' ? sent : '');
  const tokenOk = given.length === expected.length && timingSafeEqual(given, expected);
  const originOk = origin !== null && req.headers.origin?.toLowerCase() === origin;
  if (!tokenOk || !originOk) throw new GatewayError('csrf_refused');
}

/** The Set-Cookie value that stores a session id (Secure behind TLS). */
export function sessionCookie(id: string, maxSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxSeconds}${secure ? '; Secure' : ''}`;
}

/** The Set-Cookie value that makes the browser drop the session cookie. */
export function clearedCookie(secure: boolean): string {
  return `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure ? '; Secure' : ''}`;
}

const iso = (d: Date): string => d.toISOString();
