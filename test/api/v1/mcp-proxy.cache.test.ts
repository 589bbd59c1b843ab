// The proxy's state cache across daemons: two gateways on one database, state changed through
// daemon 1 (its API, or a raw UPDATE) reaches daemon 2's warm cache once the notification arrives
// (polled to a deadline, never slept on); and a warm tools/call reads no state from the database.
import t, { type Test } from 'tap';
import type { StateCache } from '../../../daemon/state-cache/cache.js';
import { stateCacheOf } from '../../../daemon/state-cache/pool-attachment.js';
import { startTestGateway, type ApiResponse, type TestGateway } from '../../helpers/gateway.js';
import {
  activeAgent,
  activeServer,
  callTraces,
  PROXY_ENV,
  startCountingServer,
  startProxyGateway,
  type ProxyGateway,
} from '../../helpers/mcp-proxy.js';

interface Pair {
  readonly px: ProxyGateway;
  readonly d2: TestGateway;
  readonly cache2: StateCache;
  /** tools/call on daemon 2. */
  call(serverId: string, name: string, opts?: { token?: string; agent?: string }): Promise<ApiResponse>;
}

async function twoDaemons(t: Test): Promise<Pair> {
  const px = await startProxyGateway(t);
  const d2 = await startTestGateway(t, { databaseUrl: px.gw.databaseUrl, env: PROXY_ENV });
  const cache2 = stateCacheOf(d2.gateway.sql)!;
  t.ok(cache2.connected, 'daemon 2 listens');
  return {
    px,
    d2,
    cache2,
    call: (serverId, name, opts = {}) =>
      d2.api('POST', `/api/v1/mcp/proxy/${serverId}`, {
        token: opts.token ?? px.gw.adminToken,
        headers: opts.agent ? { 'x-agent-id': opts.agent } : {},
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: { city: 'x' } } },
      }),
  };
}

/** Calls `attempt` until `done` holds, for at most 10 s (a deadline, not a measurement). */
async function eventually(attempt: () => Promise<ApiResponse>, done: (r: ApiResponse) => boolean): Promise<ApiResponse> {
  const deadline = Date.now() + 10_000;
  let last = await attempt();
  while (!done(last) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    last = await attempt();
  }
  return last;
}

const reason = (r: ApiResponse): unknown => r.body?.error?.data?.reason;
const passed = (r: ApiResponse): boolean => r.status === 200 && r.body?.result !== undefined;

/**
 * Daemon 2 serves `calls` from memory: a repeat hits its cache without a miss. Repeated (bounded)
 * because a notification of daemon 1's set-up may still arrive and empty it once.
 */
async function warm(t: Test, pair: Pair, calls: () => Promise<ApiResponse>): Promise<void> {
  t.ok(passed(await calls()), 'daemon 2 forwards');
  let fromMemory = false;
  for (let i = 0; i < 20 && !fromMemory; i += 1) {
    const before = { ...pair.cache2.stats };
    t.ok(passed(await calls()), 'and again');
    fromMemory = pair.cache2.stats.hits > before.hits && pair.cache2.stats.misses === before.misses;
  }
  t.ok(fromMemory, 'from its cache, without a miss');
}

t.test('a rule DENY, a paused server, a re-fingerprinted tool (raw UPDATE) reach daemon 2', async (t) => {
  const pair = await twoDaemons(t);
  const up = await startCountingServer(t);
  const s = await activeServer(pair.px, up.url, { get_weather: 'ALLOW', ping: 'ALLOW' });
  await warm(t, pair, () => pair.call(s.id, 'get_weather'));
  const rule = await pair.px.gw.api('POST', '/api/v1/mcp/policies', { body: { action: 'DENY', mcp_tool_id: s.tools.get_weather } });
  t.equal(rule.status, 201, 'DENY added through daemon 1');
  t.equal(
    reason(
      await eventually(
        () => pair.call(s.id, 'get_weather'),
        (r) => reason(r) === 'TOOL_DENIED',
      ),
    ),
    'TOOL_DENIED',
  );

  await warm(t, pair, () => pair.call(s.id, 'ping'));
  await pair.px.gw.db`update mcp_tools set current_fingerprint = 'sha256:' || repeat('3', 64) where id = ${s.tools.ping!}`;
  t.equal(
    reason(
      await eventually(
        () => pair.call(s.id, 'ping'),
        (r) => reason(r) === 'APPROVED_FINGERPRINT_MISMATCH',
      ),
    ),
    'APPROVED_FINGERPRINT_MISMATCH',
    'a raw UPDATE too',
  );

  t.equal((await pair.px.gw.api('POST', `/api/v1/mcp/servers/${s.id}/pause`)).status, 200, 'paused through daemon 1');
  t.equal(
    reason(
      await eventually(
        () => pair.call(s.id, 'get_weather'),
        (r) => reason(r) === 'SERVER_BLOCKED',
      ),
    ),
    'SERVER_BLOCKED',
  );
  const traces = await callTraces(pair.px.gw);
  t.same(
    [...new Set(traces.filter((x) => x.decision !== 'PASSED').map((x) => x.body.stage))].sort(),
    ['admission', 'rule', 'server'],
    'each refusal is a trace',
  );
});

t.test('a suspended agent, a revoked credential and the project stop reach daemon 2', async (t) => {
  const pair = await twoDaemons(t);
  const up = await startCountingServer(t);
  const s = await activeServer(pair.px, up.url, { get_weather: 'ALLOW' });
  const agent = await activeAgent(pair.px.gw);
  await warm(t, pair, () => pair.call(s.id, 'get_weather', { agent }));
  t.equal(
    (await pair.px.gw.api('POST', `/api/v1/agents/${agent}/suspend`, { body: { reason: 'test' } })).status,
    200,
    'suspended through daemon 1',
  );
  t.equal(
    reason(
      await eventually(
        () => pair.call(s.id, 'get_weather', { agent }),
        (r) => reason(r) === 'AGENT_EMERGENCY_STOP',
      ),
    ),
    'AGENT_EMERGENCY_STOP',
  );

  const created = await pair.px.gw.api('POST', '/api/v1/keys', { body: { name: 'viewer', role: 'viewer' } });
  const token = created.body.key as string;
  await warm(t, pair, () => pair.call(s.id, 'get_weather', { token }));
  t.equal((await pair.px.gw.api('DELETE', `/api/v1/keys/${created.body.id}`)).status, 200, 'revoked through daemon 1');
  t.equal(
    (
      await eventually(
        () => pair.call(s.id, 'get_weather', { token }),
        (r) => r.status === 401,
      )
    ).status,
    401,
  );

  await warm(t, pair, () => pair.call(s.id, 'get_weather'));
  t.equal(
    (await pair.px.gw.api('POST', '/api/v1/project/emergency-stop', { body: { reason: 'test' } })).status,
    200,
    'project stopped through daemon 1',
  );
  const stopped = await eventually(
    () => pair.call(s.id, 'get_weather'),
    (r) => r.status === 403,
  );
  t.equal(stopped.body?.error?.code, 'project_emergency_stopped');
});

t.test('with the cache warm, an allowed tools/call reads no state: its only query work is the trace (and the rate limit)', async (t) => {
  const px = await startProxyGateway(t);
  const up = await startCountingServer(t);
  const s = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const agent = await activeAgent(px.gw);
  const cache = stateCacheOf(px.gw.gateway.sql)!;
  const call = () => px.callTool(s.id, 'get_weather', { city: 'x' }, { headers: { 'x-agent-id': agent } });
  // The set-up's own notifications (server, tools, rules, agent) reach the cache asynchronously: one
  // arriving after the cold call would drop what it loaded and make a warm call miss.
  await px.gw.settled();
  t.ok(passed(await call()), 'cold call forwarded');
  const before = { ...cache.stats };
  const queries: string[] = [];
  const options = (px.gw.gateway.sql as unknown as { options: { debug?: unknown } }).options;
  options.debug = (_conn: number, query: string) => {
    queries.push(query.replace(/\s+/g, ' ').trim());
  };
  t.teardown(() => {
    options.debug = undefined;
  });
  for (let i = 0; i < 5; i += 1) t.ok(passed(await call()), `warm call ${i + 1} forwarded`);
  options.debug = undefined;
  t.equal(cache.stats.misses, before.misses, 'no misses');
  t.equal(cache.stats.bypassed, before.bypassed, 'no bypass');
  t.ok(cache.stats.hits >= before.hits + 5 * 5, 'credential, server, agent, tool and rules from memory each time');
  // The daemon's periodic approval-expiry sweep (approvals/expiry.ts) may run during the calls: it is not the calls' work.
  const sweep = /^update approvals set status = 'EXPIRED'/i;
  // `projects`: the audit level that decides whether the call's original is sealed is cached too.
  const stateReads = queries.filter(
    (q) =>
      !sweep.test(q)
      && /\b(from|join) (credentials|project_stops|mcp_servers|mcp_tools|mcp_policies|agents|mcp_proxy_sessions|approvals|projects)\b/i.test(
        q,
      ),
  );
  t.same(stateReads, [], 'no query read cached state');
  t.ok(
    queries.some((q) => /insert into "?traces"? /i.test(q)),
    'the traces were appended',
  );
  t.comment(`queries during 5 warm calls: ${JSON.stringify([...new Set(queries.map((q) => q.slice(0, 60)))])}`);
  const metrics = await px.gw.api('GET', '/metrics');
  t.match(metrics.text, /gateway_state_cache_hits_total \d+/);
  t.match(metrics.text, /gateway_state_cache_misses_total \d+/);
  t.match(metrics.text, /gateway_state_cache_listening 1/);
});
