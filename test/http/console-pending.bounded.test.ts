// /api/v1/console/oidc/start answers anyone, and each call keeps a sign-in under way until the
// browser returns or it expires: the number kept is bounded, and past the bound a new sign-in is
// refused with nothing written (the route then sends the browser back with sign_in_busy).
import t from 'tap';
import { MAX_PENDING, savePending } from '../../daemon/http/console-pending.js';
import { newPendingSignIn } from '../../daemon/identity/index.js';
import { migratedDatabase } from '../helpers/project.js';

t.test('past the bound no sign-in is kept; an expired one makes room again', async (t) => {
  const { sql } = await migratedDatabase(t);
  const count = async () => (await sql<{ n: number }[]>`select count(*)::int as n from console_oidc_sign_ins`)[0]!.n;
  t.type(await savePending(sql, newPendingSignIn(), 2), 'string');
  t.type(await savePending(sql, newPendingSignIn(), 2), 'string');
  t.equal(await savePending(sql, newPendingSignIn(), 2), null, 'the third is refused');
  t.equal(await count(), 2, 'nothing written for it');
  await sql`update console_oidc_sign_ins set expires_at = now() - interval '1 second' where ctid = (select ctid from console_oidc_sign_ins limit 1)`;
  t.type(await savePending(sql, newPendingSignIn(), 2), 'string', 'room once one expired');
  t.equal(await count(), 2);
  t.ok(MAX_PENDING >= 1000, 'the shipped bound leaves room for real sign-ins');
});
