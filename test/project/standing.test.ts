// A held call's second look at its caller: an API key's row (revoked?) and its project's stop; an
// access token's subject (no row; daemon/identity/) by its project's stop alone.
import t from 'tap';
import { subjectCredentialId } from '../../daemon/identity/principal.js';
import { insertCredential } from '../../daemon/project/keys.js';
import { credentialStanding } from '../../daemon/project/standing.js';
import { migratedDatabase } from '../helpers/project.js';

t.test("an access token's subject stands while its project is not stopped", async (t) => {
  const { sql } = await migratedDatabase(t);
  const subject = subjectCredentialId('https://idp.example.com', 'alice');
  t.equal(await credentialStanding(sql, subject, 'p1'), 'ok');
  await sql`update project_stops set active = true where project_id = 'p1'`;
  t.equal(await credentialStanding(sql, subject, 'p1'), 'stopped');
});

t.test('an API key: revoked when its row is gone or revoked, stopped with its project', async (t) => {
  const { sql } = await migratedDatabase(t);
  t.equal(await credentialStanding(sql, 'no-such-credential', 'p1'), 'revoked');
  const key = await sql.begin((tx) => insertCredential(tx, 'p1', { kind: 'project_key', name: 'k', role: 'viewer', userId: null }, null));
  t.equal(await credentialStanding(sql, key.id, 'p1'), 'ok');
  await sql`update credentials set revoked_at = now() where id = ${key.id}`;
  t.equal(await credentialStanding(sql, key.id, 'p1'), 'revoked');
});
