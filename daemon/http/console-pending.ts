// A console sign-in by the identity provider while the browser is away at the issuer: its state,
// nonce and PKCE verifier, kept in the database under the SHA-256 of a random id the browser holds
// in a short-lived HttpOnly cookie. The cookie is SameSite=Lax, not Strict: the issuer sends the
// browser back by a cross-site top-level GET, which carries Lax cookies but not Strict ones. Taking
// the sign-in deletes it, so a return (a replayed callback URL included) is honoured at most once.
import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Sql } from '../db/connect.js';
import type { PendingSignIn } from '../identity/index.js';

export const PENDING_COOKIE = 'gateway_console_oidc';
/** The cookie is sent to the sign-in routes only. */
export const PENDING_PATH = '/api/v1/console/oidc';
/** How long the browser may stay at the issuer (logging in, consenting). */
export const PENDING_SECONDS = 600;
const PENDING_ID = /^[A-Za-z0-9_-]{43}$/;
/**
 * Sign-ins under way at most (unexpired rows): /start answers anyone, so without a bound a flood of
 * it would grow the table for PENDING_SECONDS. Past it new sign-ins are refused until some expire.
 */
export const MAX_PENDING = 10_000;

const digest = (id: string): Buffer => createHash('sha256').update(`pending\u0000${id}`, 'utf8').digest();

/**
 * Keeps a sign-in under way; returns the id for its cookie, or null when MAX_PENDING are under way
 * (nothing written). Expired ones go as new ones come.
 */
export async function savePending(sql: Sql, p: PendingSignIn, max = MAX_PENDING): Promise<string | null> {
  const id = randomBytes(32).toString('base64url');
  await sql`delete from console_oidc_sign_ins where expires_at < now()`;
  const saved = await sql`
    insert into console_oidc_sign_ins (id_hash, state, nonce, code_verifier, expires_at)
    select ${digest(id)}, ${p.state}, ${p.nonce}, ${p.verifier}, now() + make_interval(secs => ${PENDING_SECONDS})
    where (select count(*) from (select 1 from console_oidc_sign_ins limit ${max}) as under_way) < ${max}`;
  return saved.count === 1 ? id : null;
}

/** The request's sign-in under way, deleted as it is read; null when there is none (or it expired). */
export async function takePending(sql: Sql, req: IncomingMessage): Promise<PendingSignIn | null> {
  const id = pendingIdOf(req);
  if (id === null) return null;
  const [row] = await sql<{ state: string; nonce: string; code_verifier: string; live: boolean }[]>`
    delete from console_oidc_sign_ins where id_hash = ${digest(id)} returning state, nonce, code_verifier, expires_at > now() as live`;
  return row?.live ? { state: row.state, nonce: row.nonce, verifier: row.code_verifier } : null;
}

function pendingIdOf(req: IncomingMessage): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === PENDING_COOKIE) {
      const value = part.slice(eq + 1).trim();
      return PENDING_ID.test(value) ? value : null;
    }
  }
  return null;
}

export function pendingCookie(id: string, secure: boolean): string {
  return `${PENDING_COOKIE}=${id}; Path=${PENDING_PATH}; HttpOnly; SameSite=Lax; Max-Age=${PENDING_SECONDS}${secure ? '; Secure' : ''}`;
}

export function clearedPendingCookie(secure: boolean): string {
  return `${PENDING_COOKIE}=; Path=${PENDING_PATH}; HttpOnly; SameSite=Lax; Max-Age=0${secure ? '; Secure' : ''}`;
}
