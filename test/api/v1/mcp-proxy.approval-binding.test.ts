// X-Agent-Id proves nothing, so an approval is bound to the credential whose call opened it (only
// that credential spends it) and approval requests are counted per credential (open ones, open ones
// per agent within the credential, new ones per minute), anonymous calls included. Real daemon,
// real database, a real SDK server upstream, a real webhook receiver.
import t from 'tap';
import {
  activeAgent,
  activeServer,
  callTraces,
  startCountingServer,
  startProxyGateway,
  type ProxyGateway,
} from '../../helpers/mcp-proxy.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';

const RULES = { get_weather: 'ALLOW', delete_file: 'REQUIRE_APPROVAL', ping: 'REQUIRE_APPROVAL', progress: 'ALLOW' };

/** A project API key of `role`: its id (what approvals name) and its secret. */
async function projectKey(px: ProxyGateway, name: string, role = 'editor'): Promise<{ id: string; token: string }> {
  const res = await px.gw.api('POST', '/api/v1/keys', { body: { name, role } });
  if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${res.text}`);
  return { id: res.body.id as string, token: res.body.key as string };
}

const count = async (px: ProxyGateway, table: 'approvals' | 'notification_deliveries') =>
  (await px.gw.db`select count(*)::int as n from ${px.gw.db(table)}`)[0]!.n;

t.test('an approval is spent only by the credential whose call opened it, agent header or not', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t, { response: 'json' });
  const s = await activeServer(px, up.url, RULES);
  const agent = await activeAgent(px.gw);
  const alice = await px.gw.key('admin', 'alice');
  const a = await projectKey(px, 'agent-a');
  const b = await projectKey(px, 'other');

  for (const agentHeader of [{ 'x-agent-id': agent }, {}] as Record<string, string>[]) {
    const args = { path: `/srv/${Object.keys(agentHeader).length ? 'agent' : 'anonymous'}` };
    const held = await px.callTool(s.id, 'delete_file', args, { token: a.token, headers: agentHeader });
    const id = held.body.error.data.approval_id as string;
    const listed = (await px.call('GET', '/api/v1/mcp/approvals')).body.approvals.find((x: { id: string }) => x.id === id);
    t.equal(listed.credential_id, a.id, 'the listing names the credential (its id)');
    t.notOk(JSON.stringify(listed).includes(a.token), 'never its secret');
    t.equal((await px.call('GET', `/api/v1/approvals/${id}`)).body.credential_id, a.id);
    t.equal((await callTraces(px.gw)).at(-1)!.body.credential_id, a.id, 'the held call’s trace names it');
    await px.call('POST', `/api/v1/mcp/approvals/${id}/decide`, { token: alice, body: { approved: true } });

    // another key of the project, same agent header, same arguments, the approval id: refused, not spent
    const approvals = await count(px, 'approvals');
    const stolen = await px.callTool(s.id, 'delete_file', args, {
      token: b.token,
      headers: { ...agentHeader, 'x-gateway-approval-id': id },
    });
    t.match(stolen.body.error, { code: -32004, data: { approval_rejected: 'not_found' } }, 'the usual reason');
    t.not(stolen.body.error.data.approval_id, id, 'held under a request of its own');
    t.equal((await count(px, 'approvals')) - approvals, 1);
    t.equal((await px.gw.db`select credential_id from approvals where id = ${stolen.body.error.data.approval_id}`)[0]!.credential_id, b.id);
    t.equal((await px.gw.db`select status from approvals where id = ${id}`)[0]!.status, 'APPROVED', 'not consumed');
    t.equal(up.calls(), 0, 'nothing forwarded');

    // its own credential spends it once
    const used = await px.callTool(s.id, 'delete_file', args, { token: a.token, headers: { ...agentHeader, 'x-gateway-approval-id': id } });
    t.ok(used.body.result, 'forwarded under the approval');
    t.equal(up.calls(), 1);
    t.equal((await px.gw.db`select status from approvals where id = ${id}`)[0]!.status, 'USED');
    const passed = (await callTraces(px.gw)).at(-1)!;
    t.match(passed, { decision: 'PASSED', body: { approval_id: id, credential_id: a.id } });
    up.seen.length = 0;
  }
});

t.test("a key that names a registered agent fills its own budget, never the agent's", async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_MAX_PENDING_APPROVALS_PER_AGENT: '2' });
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, RULES);
  const agent = await activeAgent(px.gw);
  const own = await projectKey(px, 'the agent');
  const spoofer = await projectKey(px, 'spoofer', 'viewer');
  const headers = { 'x-agent-id': agent };
  for (const n of [1, 2]) t.equal((await px.callTool(s.id, 'ping', { n }, { token: spoofer.token, headers })).body.error.code, -32004);
  const over = await px.callTool(s.id, 'ping', { n: 3 }, { token: spoofer.token, headers });
  t.match(over.body.error, {
    code: -32005,
    data: { reason: 'PENDING_APPROVALS_LIMIT', scope: 'agent', agent_id: agent, credential_id: spoofer.id, limit: 2 },
  });
  const mine = await px.callTool(s.id, 'ping', { n: 4 }, { token: own.token, headers });
  t.match(mine.body.error, { code: -32004, data: { reason: 'TOOL_REQUIRES_APPROVAL' } }, 'the agent’s own key still asks');
  t.equal(up.calls(), 0);
});

t.test('300 anonymous held calls in a burst: at most the per-minute limit of requests and webhooks', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_APPROVAL_REQUESTS_PER_MINUTE: '10', GATEWAY_NOTIFICATION_POLL_MS: '60000' });
  const rx = await startReceiver(t);
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, RULES);
  const sub = await px.call('POST', '/api/v1/notifications/subscriptions', {
    body: { url: rx.url('/hook'), events: ['approval.requested'], format: 'standard' },
  });
  t.equal(sub.status, 201);
  const caller = await projectKey(px, 'burst');
  const results = await Promise.all(Array.from({ length: 300 }, (_, n) => px.callTool(s.id, 'ping', { n }, { token: caller.token })));
  const held = results.filter((r) => r.body.error?.code === -32004);
  const limited = results.filter((r) => r.body.error?.data?.reason === 'APPROVAL_RATE_LIMITED');
  t.equal(held.length, 10, 'ten held');
  t.equal(limited.length, 290, 'the rest refused');
  t.match(limited[0]!.body.error, {
    code: -32005,
    data: { credential_id: caller.id, limit: 10, window_seconds: 60, retry_after_seconds: Number },
  });
  t.equal(await count(px, 'approvals'), 10, 'ten requests');
  t.equal(await count(px, 'notification_deliveries'), 10, 'ten webhook deliveries');
  const traces = await callTraces(px.gw);
  t.equal(
    traces.filter((x) => x.body.outcome === 'APPROVAL_RATE_LIMITED' && x.decision === 'BLOCKED').length,
    290,
    'each refusal is a trace',
  );
  const other = await projectKey(px, 'bystander');
  t.equal((await px.callTool(s.id, 'ping', { n: 1 }, { token: other.token })).body.error.code, -32004, 'another key is not limited');
  t.equal(up.calls(), 0);
});

t.test('open requests per credential, anonymous included: concurrent calls cannot overshoot', async (t) => {
  const px = await startProxyGateway(t, { GATEWAY_MAX_PENDING_APPROVALS_PER_CREDENTIAL: '5' });
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, RULES);
  const agent = await activeAgent(px.gw);
  const caller = await projectKey(px, 'many');
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, n) =>
      px.callTool(s.id, 'ping', { n }, { token: caller.token, headers: n % 2 ? { 'x-agent-id': agent } : {} }),
    ),
  );
  t.equal(results.filter((r) => r.body.error?.code === -32004).length, 5);
  const over = results.filter((r) => r.body.error?.code === -32005);
  t.equal(over.length, 15);
  t.ok(over.every((r) => r.body.error.data.reason === 'PENDING_APPROVALS_LIMIT' && r.body.error.data.scope === 'credential'));
  t.equal(await count(px, 'approvals'), 5);
  // a decided request is no longer open: room for one more
  const alice = await px.gw.key('admin', 'alice');
  const open = (await px.gw.db`select id from approvals limit 1`)[0]!.id;
  await px.call('POST', `/api/v1/mcp/approvals/${open}/decide`, { token: alice, body: { approved: false } });
  t.equal((await px.callTool(s.id, 'ping', { n: 99 }, { token: caller.token })).body.error.code, -32004);
  t.equal(up.calls(), 0);
});
