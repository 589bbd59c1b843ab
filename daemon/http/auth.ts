// Authentication and authorisation for every route, in one place: who is calling (401), whether
// the project emergency stop refuses them (403 project_emergency_stopped), whether their role or
// credential kind fits the route (403 forbidden).
import type { IncomingMessage } from 'node:http';
import { roleAtLeast, type Principal } from '../../shared/credentials.js';
import { GatewayError } from '../../shared/errors.js';
import type { Sql } from '../db/connect.js';
import { authenticateAccessToken, challengeHeaders, isAccessToken } from '../identity/index.js';
import { hashToken, looksLikeToken, sameHash } from '../project/tokens.js';
import { parseRequestTarget } from './request-target.js';
import { mayWriteState } from '../state-cache/may-write-state.js';
import { stateCacheOf } from '../state-cache/pool-attachment.js';
import { readOrRecall } from '../state-cache/last-known.js';
import { hasSessionCookie, sessionOf } from './console-session.js';
import { principalOfRow, type PrincipalRow } from './principal-row.js';
import type { Route } from './types.js';

function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

interface CredentialRow extends PrincipalRow {
  token_hash: Buffer;
}

export async function authenticate(sql: Sql, req: IncomingMessage, route: Route): Promise<Principal> {
  const token = bearer(req);
  // The web console's browser sends its session cookie instead (console-session.ts: CSRF rule included).
  const principal =
    token === null && hasSessionCookie(req) ? (await sessionOf(sql, req)).principal : await principalOfBearer(sql, req, token);
  const cache = stateCacheOf(sql);
  // A request that may change cached state drops its project's entries before it writes, so the
  // caller's next request to this daemon reads the change (other daemons learn it by NOTIFY).
  if (cache && mayWriteState(req.method, route)) cache.changed(principal.projectId, null);
  return principal;
}

/** The caller of a bearer: an OAuth access token or a gateway key; a refusal carries the proxy's challenge (RFC 9728). */
async function principalOfBearer(sql: Sql, req: IncomingMessage, token: string | null): Promise<Principal> {
  // An OAuth access token (a JWT, while GATEWAY_OIDC_ISSUER is set) is the identity module's to judge.
  if (token && !looksLikeToken(token) && isAccessToken(sql, token)) return authenticateAccessToken(sql, token);
  return principalOfToken(
    sql,
    token,
    () => new GatewayError('unauthorized', undefined, challengeHeaders(sql, parseRequestTarget(req.url).pathname)),
  );
}

/** The live credential of a gateway key (`refused()` when there is none: 401 unauthorized). */
export async function principalOfToken(
  sql: Sql,
  token: string | null,
  refused: () => GatewayError = () => new GatewayError('unauthorized'),
): Promise<Principal> {
  if (!token || !looksLikeToken(token)) throw refused();
  const hash = hashToken(token);
  const cache = stateCacheOf(sql);
  // While the database is unreachable a credential read recently is still honoured (last-known.ts;
  // a revocation meanwhile applies once it is back); one never read is refused (503).
  const load = () =>
    readOrRecall(
      sql,
      `credential\u0000${hash.toString('hex')}`,
      () => credentialOf(sql, hash),
      (found) => found !== null,
    );
  const found = cache ? await cache.readCredential(hash.toString('hex'), load) : ((await load())?.value ?? null);
  if (!found || !sameHash(found.tokenHash, hash)) throw refused();
  return found.principal;
}

/**
 * The live credential of a token hash, with its project's stop state. Held by the state cache
 * (daemon/state-cache/) under the hash; a revocation or a stop change notifies its project.
 */
async function credentialOf(
  sql: Sql,
  hash: Buffer,
): Promise<{ projectId: string; value: { tokenHash: Buffer; principal: Principal } } | null> {
  const rows = await sql<CredentialRow[]>`
    select c.id as credential_id, c.project_id, c.kind, c.role, c.user_id, c.name, c.token_hash, coalesce(s.active, false) as stopped
    from credentials c left join project_stops s on s.project_id = c.project_id
    where c.token_hash = ${hash} and c.revoked_at is null`;
  const row = rows[0];
  if (!row) return null;
  const principal = principalOfRow(row);
  return { projectId: row.project_id, value: { tokenHash: row.token_hash, principal } };
}

/** The emergency-stop rule, then the role rule. Throws the refusal; returns when the call may go on. */
export function authorize(principal: Principal, route: Route): void {
  if (principal.projectStopped) {
    const userMayPass = principal.kind === 'user_token' && (route.method === 'GET' || route.allowedDuringStop === true);
    if (!userMayPass) throw new GatewayError('project_emergency_stopped');
  }
  if (route.auth === 'extension') {
    if (principal.kind !== 'extension') throw new GatewayError('forbidden', 'This route takes an extension key.');
    return;
  }
  if (principal.kind === 'extension') throw new GatewayError('forbidden', 'Extension keys may only post to /api/v1/webhooks/ingest.');
  if (route.auth !== 'public' && !roleAtLeast(principal.role, route.auth)) {
    throw new GatewayError('forbidden', `This route needs the ${route.auth} role.`);
  }
}
