// Authentication and authorisation for every route, in one place: who is calling (401), whether
// the project emergency stop refuses them (403 project_emergency_stopped), whether their role or
// credential kind fits the route (403 forbidden).
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../../shared/errors.js';
import type { Sql } from '../db/connect.js';
import { hashToken, looksLikeToken, sameHash } from '../project/tokens.js';
import { roleAtLeast, type CredentialKind, type Principal, type Role, type Route } from './types.js';

function bearer(req: IncomingMessage): string | null {
  const header = req.headers.authorization;
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}

interface CredentialRow {
  id: string;
  project_id: string;
  kind: CredentialKind;
  role: Role | null;
  user_id: string | null;
  name: string;
  token_hash: Buffer;
  stopped: boolean;
}

export async function authenticate(sql: Sql, req: IncomingMessage): Promise<Principal> {
  const token = bearer(req);
  if (!token || !looksLikeToken(token)) throw new GatewayError('unauthorized');
  const hash = hashToken(token);
  const rows = await sql<CredentialRow[]>`
    select c.id, c.project_id, c.kind, c.role, c.user_id, c.name, c.token_hash, coalesce(s.active, false) as stopped
    from credentials c left join project_stops s on s.project_id = c.project_id
    where c.token_hash = ${hash} and c.revoked_at is null`;
  const row = rows[0];
  if (!row || !sameHash(row.token_hash, hash)) throw new GatewayError('unauthorized');
  return {
    credentialId: row.id,
    projectId: row.project_id,
    kind: row.kind,
    role: row.role,
    userId: row.user_id,
    name: row.name,
    projectStopped: row.stopped,
  };
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
