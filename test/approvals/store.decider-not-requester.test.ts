// GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER: an approval request is decided by someone other than who
// opened it. The admin whose own call was held is refused 403 with the credential that made the
// call and with another token of the same user, and nothing is written; another admin decides.
// Without the setting the requester may decide, as before. Real daemon, database and upstream.
import t from 'tap';
import { activeServer, startCountingServer, startProxyGateway, type ProxyGateway } from '../helpers/mcp-proxy.js';

const RULES = { get_weather: 'ALLOW', delete_file: 'REQUIRE_APPROVAL' };

const approvalTraces = async (px: ProxyGateway) =>
  (await px.gw.db<{ n: number }[]>`select count(*)::int as n from traces where trace_type = 'APPROVAL'`)[0]!.n;
const statusOf = async (px: ProxyGateway, id: string) =>
  (await px.gw.db<{ status: string }[]>`select status from approvals where id = ${id}`)[0]!.status;

async function held(px: ProxyGateway, serverId: string, token: string, path: string): Promise<string> {
  const res = await px.callTool(serverId, 'delete_file', { path }, { token });
  const id = res.body?.error?.data?.approval_id;
  if (typeof id !== 'string') throw new Error(`not held: ${res.status} ${res.text}`);
  return id;
}

t.test('with the setting, neither the requesting credential nor its user decides; another admin does', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER: '1' });
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, RULES);
  const alice = await px.gw.key('admin', 'alice');
  const aliceAgain = await px.gw.key('admin', 'alice');
  const bob = await px.gw.key('admin', 'bob');
  const id = await held(px, s.id, alice, '/srv/a');

  const traces = await approvalTraces(px);
  for (const [who, token, route] of [
    ['the requesting credential', alice, `/api/v1/mcp/approvals/${id}/decide`],
    ['another token of the same user', aliceAgain, `/api/v1/approvals/${id}/decide`],
  ] as const) {
    const res = await px.call('POST', route, { token, body: { approved: true } });
    t.equal(res.status, 403, `${who}: ${res.text}`);
    t.equal(res.body.error.code, 'approval_decider_is_requester');
    t.match(res.body.error.message, /another person must decide it/);
    t.equal(await statusOf(px, id), 'PENDING', 'still open');
    t.equal(await approvalTraces(px), traces, 'no decision recorded');
  }
  const decided = await px.call('POST', `/api/v1/mcp/approvals/${id}/decide`, { token: bob, body: { approved: true } });
  t.equal(decided.status, 200, decided.text);
  t.equal(await statusOf(px, id), 'APPROVED');
  t.equal(await approvalTraces(px), traces + 1);
});

t.test('without the setting the requester may decide their own request', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, RULES);
  const alice = await px.gw.key('admin', 'alice');
  const id = await held(px, s.id, alice, '/srv/b');
  const res = await px.call('POST', `/api/v1/mcp/approvals/${id}/decide`, { token: alice, body: { approved: false } });
  t.equal(res.status, 200, res.text);
  t.equal(await statusOf(px, id), 'DENIED');
});
