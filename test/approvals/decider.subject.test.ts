// Deciding approvals as a person the identity provider names (approvals/decider.ts): an Admin
// signed in to the console by the provider, or calling with the provider's access token, decides as
// themselves (decided_by: display name and sub). With GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER the
// person whose token's call was held cannot decide it, by console session or by token; another
// person can. A project key still cannot decide, whatever its role. Real oidc-provider and daemon.
import t from 'tap';
import type { TestGateway } from '../helpers/gateway.js';
import { activeServer, type ProxyGateway, startCountingServer } from '../helpers/mcp-proxy.js';
import { loginByCode, returnTo, startConsoleIdp } from '../helpers/oidc-code-user.js';

const admin = (name: string) => ({ name, groups: ['admin'], gateway_project: 'default' });
const PEOPLE = [
  { id: 'alice', claims: admin('Alice Example') },
  { id: 'bob', claims: admin('Bob Example') },
];
// The same people as clients of the client credentials grant: tokens whose sub is the same id.
const CLIENTS = [
  { id: 'alice', secret: 'alice-secret-of-enough-length-0123456789', claims: admin('Alice Example') },
  { id: 'bob', secret: 'bob-secret-of-enough-length-0123456789', claims: admin('Bob Example') },
];

/** A console session by the provider: its decide call (cookie, CSRF token, the console's origin). */
async function consoleDecider(gw: TestGateway, login: string) {
  const r = await loginByCode(gw.url, login);
  if (!(await returnTo(r)).session) throw new Error(`${login} was not signed in`);
  const cookie = r.browser.cookieHeader(new URL(gw.url));
  const session = (await (await fetch(`${gw.url}/api/v1/console/session`, { headers: { cookie } })).json()) as { csrf_token: string };
  return (id: string) =>
    gw.api('POST', `/api/v1/approvals/${id}/decide`, {
      token: null,
      body: { approved: true },
      headers: { cookie, 'x-gateway-csrf': session.csrf_token, origin: gw.url },
    });
}

async function held(px: ProxyGateway, serverId: string, token: string, path: string): Promise<string> {
  const res = await px.callTool(serverId, 'delete_file', { path }, { token });
  const id = res.body?.error?.data?.approval_id;
  if (typeof id !== 'string') throw new Error(`not held: ${res.status} ${res.text}`);
  return id;
}

const decisionOf = async (gw: TestGateway, id: string) =>
  (await gw.db<{ status: string; decided_by: string | null }[]>`select status, decided_by from approvals where id = ${id}`)[0];
const approvalTraces = async (gw: TestGateway) =>
  (await gw.db<{ n: number }[]>`select count(*)::int as n from traces where trace_type = 'APPROVAL'`)[0]!.n;

t.test("a person's own held call is decided by another person, not by them in the console or with their token", async (t) => {
  const { px, gw, idp } = await startConsoleIdp(t, PEOPLE, { clients: CLIENTS, env: { GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER: '1' } });
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { delete_file: 'REQUIRE_APPROVAL' });
  const resource = `${px.url}/api/v1/mcp/proxy`;
  const aliceToken = await idp.token('alice', resource);
  const id = await held(px, s.id, aliceToken, '/srv/alice');

  const traces = await approvalTraces(gw);
  const aliceInConsole = await consoleDecider(gw, 'alice');
  for (const [how, decide] of [
    ['in the console', () => aliceInConsole(id)],
    ['with her access token', () => gw.api('POST', `/api/v1/approvals/${id}/decide`, { token: aliceToken, body: { approved: true } })],
  ] as const) {
    const res = await decide();
    t.equal(res.status, 403, `alice ${how}: ${res.text}`);
    t.equal(res.body.error.code, 'approval_decider_is_requester', how);
    t.same(await decisionOf(gw, id), { status: 'PENDING', decided_by: null }, `${how}: still open`);
    t.equal(await approvalTraces(gw), traces, `${how}: no decision recorded`);
  }

  const bobInConsole = await consoleDecider(gw, 'bob');
  const decided = await bobInConsole(id);
  t.equal(decided.status, 200, decided.text);
  t.same(await decisionOf(gw, id), { status: 'APPROVED', decided_by: 'Bob Example (bob)' });

  // The other way round, by access token: bob's call, alice decides.
  const other = await held(px, s.id, await idp.token('bob', resource), '/srv/bob');
  const byToken = await gw.api('POST', `/api/v1/approvals/${other}/decide`, { token: aliceToken, body: { approved: false } });
  t.equal(byToken.status, 200, byToken.text);
  t.same(await decisionOf(gw, other), { status: 'DENIED', decided_by: 'Alice Example (alice)' });
});

t.test('a project key cannot decide, whatever its role', async (t) => {
  const { px, gw } = await startConsoleIdp(t, PEOPLE, { clients: CLIENTS });
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { delete_file: 'REQUIRE_APPROVAL' });
  const id = await held(px, s.id, gw.adminToken, '/srv/key');
  const projectKey = await gw.key('admin');
  const res = await gw.api('POST', `/api/v1/approvals/${id}/decide`, { token: projectKey, body: { approved: true } });
  t.equal(res.status, 403, res.text);
  t.equal(res.body.error.code, 'mcp_release_author_unresolved');
  t.same(await decisionOf(gw, id), { status: 'PENDING', decided_by: null });
});
