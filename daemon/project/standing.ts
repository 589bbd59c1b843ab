// Whether a credential may still act, read from the database (not the state cache): revoked, or
// its project under the emergency stop. For a request that was admitted earlier and acts later
// (a held MCP call that waited for its approval): what authenticate() checked at the door, again.
import { isTokenCredentialId } from '../../shared/credentials.js';
import type { Sql } from '../db/connect.js';

export type Standing = 'ok' | 'revoked' | 'stopped';

export async function credentialStanding(sql: Sql, credentialId: string, projectId: string): Promise<Standing> {
  // An access token's subject has no credential row (daemon/identity/); only its project's stop applies.
  if (isTokenCredentialId(credentialId)) {
    const [stop] = await sql<{ active: boolean }[]>`select active from project_stops where project_id = ${projectId}`;
    return stop?.active === true ? 'stopped' : 'ok';
  }
  const [row] = await sql<{ revoked: boolean; stopped: boolean }[]>`
    select c.revoked_at is not null as revoked, coalesce(s.active, false) as stopped
    from credentials c left join project_stops s on s.project_id = c.project_id
    where c.id = ${credentialId}`;
  if (!row || row.revoked) return 'revoked';
  return row.stopped ? 'stopped' : 'ok';
}
