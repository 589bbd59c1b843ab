// Credentials of a project: project API keys, user tokens and extension keys. Created by an
// Admin, shown once, listed without secrets, revoked at once. Each change is in the admin log.
import { createId } from '@paralleldrive/cuid2';
import type { CredentialKind, CredentialListing, Role } from '../../shared/credentials.js';
import { GatewayError } from '../../shared/errors.js';
import type { Sql, Tx } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from './admin-actions.js';
import { displayPrefix, hashToken, newToken } from './tokens.js';

export interface CreatedCredential {
  id: string;
  name: string;
  kind: CredentialKind;
  role: Role | null;
  user_id: string | null;
  token: string;
}

export interface NewCredential {
  kind: CredentialKind;
  name: string;
  role: Role | null;
  userId: string | null;
}

/** Inserts a credential in the caller's transaction (bootstrap uses it before any actor exists). */
export async function insertCredential(tx: Tx, projectId: string, c: NewCredential, createdBy: string | null): Promise<CreatedCredential> {
  const id = createId();
  const token = newToken(c.kind);
  await tx`
    insert into credentials (id, project_id, kind, name, role, user_id, token_prefix, token_hash, created_by)
    values (${id}, ${projectId}, ${c.kind}, ${c.name}, ${c.role}, ${c.userId}, ${displayPrefix(token)}, ${hashToken(token)}, ${createdBy})`;
  return { id, name: c.name, kind: c.kind, role: c.role, user_id: c.userId, token };
}

export async function createCredential(sql: Sql, projectId: string, c: NewCredential, actor: Actor): Promise<CreatedCredential> {
  return sql.begin(async (tx) => {
    const created = await insertCredential(tx, projectId, c, actor.principal ? actorLabel(actor) : null);
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: `${c.kind}.create`,
        activity: 'create',
        targetType: c.kind,
        targetId: created.id,
        details: { name: c.name, role: c.role, user_id: c.userId },
      }),
    ]);
    return created;
  });
}

export async function listCredentials(sql: Sql, projectId: string, kinds: CredentialKind[]): Promise<CredentialListing[]> {
  const rows = await sql<
    (Omit<CredentialListing, 'created_at' | 'revoked_at' | 'prefix'> & {
      token_prefix: string;
      created_at: Date;
      revoked_at: Date | null;
    })[]
  >`
    select id, name, kind, role, user_id, token_prefix, created_at, created_by, revoked_at
    from credentials where project_id = ${projectId} and kind in ${sql(kinds)}
    order by created_at, id limit 1000`;
  return rows.map(({ token_prefix, created_at, revoked_at, ...r }) => ({
    ...r,
    prefix: token_prefix,
    created_at: created_at.toISOString(),
    revoked_at: revoked_at?.toISOString() ?? null,
  }));
}

/** Revokes at once: the next request with the token is 401, on every daemon (auth reads the database). */
export async function revokeCredential(
  sql: Sql,
  projectId: string,
  id: string,
  kinds: CredentialKind[],
  actor: Actor,
): Promise<{ id: string; revoked_at: string }> {
  return sql.begin(async (tx) => {
    const [row] = await tx<{ id: string; kind: CredentialKind; revoked_at: Date | null; name: string }[]>`
      select id, kind, revoked_at, name, role from credentials
      where id = ${id} and project_id = ${projectId} and kind in ${tx(kinds)} for update`;
    if (!row) throw new GatewayError('not_found');
    if (row.revoked_at) return { id, revoked_at: row.revoked_at.toISOString() };
    await refuseLastAdmin(tx, projectId, id);
    const [done] = await tx<{ revoked_at: Date }[]>`update credentials set revoked_at = now() where id = ${id} returning revoked_at`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: `${row.kind}.revoke`,
        activity: 'delete',
        targetType: row.kind,
        targetId: id,
        details: { name: row.name },
      }),
    ]);
    return { id, revoked_at: done!.revoked_at.toISOString() };
  });
}

/**
 * An Admin user token is the only credential that can decide approvals and admit tools; revoking
 * the last one would lock operators out of their own project. Rows are locked so that two
 * concurrent revokes cannot both pass.
 */
async function refuseLastAdmin(tx: Tx, projectId: string, id: string): Promise<void> {
  const admins = await tx<{ id: string }[]>`
    select id from credentials
    where project_id = ${projectId} and kind = 'user_token' and role = 'admin' and revoked_at is null
    order by id for update`;
  if (admins.length === 1 && admins[0]!.id === id) throw new GatewayError('last_admin_credential');
}
