// The console's sign-in by the identity provider against a real oidc-provider on 127.0.0.1: a
// person logs in and consents on the provider's own pages and comes back with the same console
// session a pasted key gives, acting as themselves with the role their claims grant. Every refusal
// (a return this browser did not begin or already used, another state, a replayed code, another
// nonce, an ID token for another client, the issuer down, no role) ends on the sign-in page with
// its reason, no session and no row written; the logs carry neither the code nor the state.
import t, { type Test } from 'tap';
import { loginByCode, OTHER_CLIENT, type Returned, returnTo, startConsoleIdp } from '../helpers/oidc-code-user.js';
import { startProxyGateway } from '../helpers/mcp-proxy.js';
import { Browser } from '../helpers/oidc-device-user.js';
import { rowCounts } from '../helpers/row-counts.js';
import type { TestGateway } from '../helpers/gateway.js';

const PEOPLE = [
  { id: 'alice', claims: { name: 'Alice Example', groups: ['admin'], gateway_project: 'default' } },
  { id: 'nora', claims: { name: 'Nora Nobody', groups: ['contractors'], gateway_project: 'default' } },
];

async function sessionOf(gw: TestGateway, r: Returned) {
  const res = await fetch(`${gw.url}/api/v1/console/session`, { headers: { cookie: r.browser.cookieHeader(new URL(gw.url)) } });
  return {
    status: res.status,
    body: (await res.json()) as { project_id: string; credential: { id: string; name: string; role: string; kind: string } },
  };
}

t.test('a person signs in at the provider and gets a console session as themselves', async (t) => {
  const { gw } = await startConsoleIdp(t, PEOPLE);
  const offered = await gw.api('GET', '/api/v1/console/oidc', { token: null });
  t.equal(offered.status, 200, offered.text);
  t.match(offered.body, { issuer: /^http:\/\/127\.0\.0\.1:\d+$/, start: '/api/v1/console/oidc/start' });

  const r = await loginByCode(gw.url, 'alice');
  const authorize = r.callback;
  t.ok(authorize.searchParams.get('code'), 'the provider sent a code');
  const back = await returnTo(r);
  t.same({ status: back.status, location: back.location, session: back.session }, { status: 302, location: '/console', session: true });
  t.notOk(r.browser.has('gateway_console_oidc'), 'the pre-session cookie is cleared');
  const s = await sessionOf(gw, r);
  t.equal(s.status, 200);
  t.match(s.body, { project_id: 'default', credential: { name: 'Alice Example', role: 'admin', kind: 'project_key' } });
  t.match(s.body.credential.id, /^oidc:[0-9a-f]{32}$/);
  const [row] = await gw.db`select subject_sub, subject_name, subject_role from console_sessions`;
  t.same(row, { subject_sub: 'alice', subject_name: 'Alice Example', subject_role: 'admin' });
  // The role is the claims' at sign-in: the session lives at most GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS (1 hour).
  const [life] = await gw.db<
    { seconds: number }[]
  >`select extract(epoch from expires_at - created_at)::int as seconds from console_sessions`;
  t.equal(life!.seconds, 3600, 'an hour, not the 12 hours of a key session');
  t.equal((await gw.db`select count(*)::int as n from console_oidc_sign_ins`)[0]!.n, 0, 'the pre-session is gone');
  const logs = gw.logLines.join('');
  for (const secret of [r.callback.searchParams.get('code')!, r.callback.searchParams.get('state')!])
    t.notOk(logs.includes(secret), 'the logs carry neither code nor state');

  const replay = await returnTo(r);
  t.same(replay, { status: 302, location: '/console?sign_in_error=sign_in_expired', session: false }, 'the same return again is refused');
});

/** Runs a sign-in that must be refused with `reason`: no session, and every table as it was. */
async function refused(
  t: Test,
  gw: TestGateway,
  reason: string,
  run: () => Promise<{ status: number; location: string | null; session: boolean }>,
) {
  const before = await rowCounts(gw.db);
  const back = await run();
  t.same(back, { status: 302, location: `/console?sign_in_error=${reason}`, session: false }, reason);
  t.same(await rowCounts(gw.db), before, `${reason}: nothing written`);
}

t.test('every refusal ends on the sign-in page without a session and writes nothing', async (t) => {
  const { gw, idp } = await startConsoleIdp(t, PEOPLE);

  await refused(t, gw, 'state_mismatch', async () => {
    const r = await loginByCode(gw.url, 'alice');
    const forged = new URL(r.callback);
    forged.searchParams.set('state', 'A'.repeat(43));
    return returnTo(r, forged);
  });

  // Another browser brings back this browser's return: it has no sign-in under way (this one's is left as it was).
  const begun = await loginByCode(gw.url, 'alice');
  await refused(t, gw, 'sign_in_expired', () => returnTo({ browser: new Browser(), callback: begun.callback }));

  const first = await loginByCode(gw.url, 'alice');
  t.equal((await returnTo(first)).session, true, 'a first redemption signs in');
  await refused(t, gw, 'code_refused', async () => {
    // A new sign-in of this browser, its state, but the code already redeemed.
    const again = await first.browser.once(`${gw.url}/api/v1/console/oidc/start`);
    const state = new URL(again.headers.get('location')!).searchParams.get('state')!;
    const replayed = new URL(first.callback);
    replayed.searchParams.set('state', state);
    return returnTo(first, replayed);
  });

  await refused(t, gw, 'nonce_mismatch', async () => {
    const r = await loginByCode(gw.url, 'alice', { tamper: (u) => u.searchParams.set('nonce', 'another-nonce-0123456789') });
    return returnTo(r);
  });

  await refused(t, gw, 'id_token_invalid', async () => {
    // The code is issued to another client and redeemed as it: an ID token whose aud is not the console.
    const r = await loginByCode(gw.url, 'alice', { tamper: (u) => u.searchParams.set('client_id', OTHER_CLIENT.id) });
    idp.redeemAs(OTHER_CLIENT);
    try {
      return await returnTo(r);
    } finally {
      idp.redeemAs(null);
    }
  });

  await refused(t, gw, 'issuer_unreachable', async () => {
    const r = await loginByCode(gw.url, 'alice');
    await idp.stop();
    try {
      return await returnTo(r);
    } finally {
      await idp.start();
    }
  });

  await refused(t, gw, 'no_role', async () => returnTo(await loginByCode(gw.url, 'nora')));
  t.equal((await gw.db`select count(*)::int as n from console_sessions`)[0]!.n, 1, 'only the first sign-in made a session');
});

t.test('without a console client id the sign-in by the provider is not offered', async (t) => {
  const { gw } = await startProxyGateway(t);
  t.equal((await gw.api('GET', '/api/v1/console/oidc', { token: null })).status, 404);
  t.equal((await gw.api('GET', '/api/v1/console/oidc/start', { token: null })).status, 404);
});
