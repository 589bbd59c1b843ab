// Who a valid access token makes the caller: a Principal of the project its claims name, with that
// project's stop state. The credential id is stable per subject (`oidc:` + a hash of issuer and
// sub), so per-credential limits and records group one person's or client's calls together.
import { createHash } from 'node:crypto';
import { type Principal, TOKEN_CREDENTIAL_PREFIX } from '../../shared/credentials.js';
import type { Sql } from '../db/connect.js';
import { readOrRecall } from '../state-cache/last-known.js';
import type { TokenIdentity } from './claims.js';

export function subjectCredentialId(issuer: string, sub: string): string {
  return `${TOKEN_CREDENTIAL_PREFIX}${createHash('sha256').update(`${issuer}\u0000${sub}`).digest('hex').slice(0, 32)}`;
}

/** The principal, or null when the project the token names does not exist here. */
export async function principalOfToken(sql: Sql, t: TokenIdentity): Promise<Principal | null> {
  const project = await readOrRecall(sql, `oidc-project\u0000${t.projectId}`, () => projectState(sql, t.projectId));
  if (project === null) return null;
  return principalOfIdentity(t, project.stopped);
}

/** The principal a subject's identity stands for (also a console session opened by the issuer). */
export function principalOfIdentity(t: TokenIdentity, projectStopped: boolean): Principal {
  return Object.freeze({
    credentialId: subjectCredentialId(t.subject.issuer, t.subject.sub),
    projectId: t.projectId,
    kind: 'project_key',
    role: t.role,
    userId: null,
    name: t.subject.name,
    projectStopped,
    subject: t.subject,
    tokenAgentId: t.agentId,
  });
}

async function projectState(sql: Sql, projectId: string): Promise<{ stopped: boolean } | null> {
  const [row] = await sql<{ stopped: boolean }[]>`
    select coalesce(s.active, false) as stopped from projects p left join project_stops s on s.project_id = p.id
    where p.id = ${projectId}`;
  return row ?? null;
}
