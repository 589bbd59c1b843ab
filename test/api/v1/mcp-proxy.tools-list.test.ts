// tools/list through the real proxy under each project setting mcp_tools_list (issue 15, item 4):
// `admitted` (default) lists every admitted, unchanged tool whatever its rule; `callable` also hides
// what the caller may never call (DENY); `upstream` passes the upstream's answer on untouched. A tool
// never admitted or changed since admission is hidden by both filtering modes. Both ways a call
// reaches the upstream are covered (the caller's own session relayed as SSE, and the gateway's
// one-off session for a bare JSON-RPC request), and a change of the setting reaches a second daemon.
import t, { type Test } from 'tap';
import { startTestGateway, type ApiResponse } from '../../helpers/gateway.js';
import { SAMPLE_TOOLS, type ToolDef } from '../../helpers/mcp-servers.js';
import {
  activeAgent,
  activeServer,
  callTraces,
  PROXY_ENV,
  startCountingServer,
  startProxyGateway,
  type ProxyGateway,
} from '../../helpers/mcp-proxy.js';
import { eventually } from '../../helpers/eventually.js';

const RULES = { get_weather: 'ALLOW', delete_file: 'DENY', ping: 'REQUIRE_APPROVAL', progress: 'LOG_ONLY' };
const CHANGED_HASH = 'sha256:' + '2'.repeat(64);

/** The JSON-RPC answer in a JSON body or the data of an SSE stream's events. */
function answerOf(res: ApiResponse): { result?: { tools: { name: string }[] }; error?: { code: number; data?: { reason?: string } } } {
  if (res.body !== null) return res.body;
  const data = res.text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => JSON.parse(l.slice(5)) as Record<string, unknown>);
  return data.find((m) => 'result' in m || 'error' in m) as never;
}

interface Setup {
  readonly px: ProxyGateway;
  readonly serverId: string;
  readonly agent: string;
  readonly upstreamUrl: string;
}

/**
 * An ACTIVE server whose tools cover every case: ALLOW, DENY, REQUIRE_APPROVAL, LOG_ONLY (DENY for
 * the agent by an agent rule), `ping` changed since admission, `newcomer` never scanned or admitted.
 */
async function setUp(t: Test): Promise<Setup> {
  const px = await startProxyGateway(t);
  const served: ToolDef[] = [...SAMPLE_TOOLS, { name: 'progress', description: 'Counts to three.', inputSchema: { type: 'object' } }];
  const up = await startCountingServer(t, { tools: served, stateless: true });
  const s = await activeServer(px, up.url, RULES);
  const agent = await activeAgent(px.gw);
  t.equal(
    (await px.gw.api('POST', '/api/v1/mcp/policies', { body: { action: 'DENY', agent_id: agent, mcp_tool_id: s.tools.progress } })).status,
    201,
  );
  served.push({ name: 'newcomer', description: 'Appeared after admission.', inputSchema: { type: 'object' } });
  await px.gw.db`update mcp_tools set approved_hash = ${CHANGED_HASH} where id = ${s.tools.ping!}`;
  await px.gw.settled();
  return { px, serverId: s.id, agent, upstreamUrl: up.url };
}

type Path = 'relayed' | 'gateway session';

/** Names listed through the proxy, by `path`, optionally as the agent. */
async function listed(x: Setup, path: Path, agent = false): Promise<string[]> {
  const headers: Record<string, string> = agent ? { 'x-agent-id': x.agent } : {};
  if (path === 'relayed') Object.assign(headers, { 'mcp-protocol-version': '2025-11-25', accept: 'application/json, text/event-stream' });
  const res = await x.px.rpc(x.serverId, { jsonrpc: '2.0', id: 'l', method: 'tools/list' }, { headers });
  const answer = answerOf(res);
  if (!answer.result) throw new Error(`tools/list: ${res.status} ${res.text}`);
  return answer.result.tools.map((tool) => tool.name).sort();
}

const setMode = async (x: Setup, mode: string) => {
  const res = await x.px.gw.api('PATCH', '/api/v1/project', { body: { mcp_tools_list: mode } });
  if (res.status !== 200) throw new Error(`PATCH: ${res.status} ${res.text}`);
};

const PATHS: Path[] = ['relayed', 'gateway session'];

t.test('admitted (default): every admitted, unchanged tool whatever its rule; never admitted and changed ones hidden', async (t) => {
  const x = await setUp(t);
  t.equal((await x.px.gw.api('GET', '/api/v1/project')).body.mcp_tools_list, 'admitted', 'the default');
  for (const path of PATHS) {
    t.same(
      await listed(x, path),
      ['delete_file', 'get_weather', 'progress'],
      `${path}: the DENY tool is listed; ping (changed) and newcomer (never admitted) are not`,
    );
    t.same(
      await listed(x, path, true),
      ['delete_file', 'get_weather', 'progress'],
      `${path}: the agent's own DENY rule does not hide a tool either`,
    );
  }
  t.equal((await callTraces(x.px.gw)).length, 0, 'tools/list is not a decision');
});

t.test('callable: also hides what this caller may never call', async (t) => {
  const x = await setUp(t);
  await setMode(x, 'callable');
  for (const path of PATHS) {
    t.same(
      await listed(x, path),
      ['get_weather', 'progress'],
      `${path}: the DENY tool is hidden, the held one listed; changed and never admitted ones hidden`,
    );
    t.same(await listed(x, path, true), ['get_weather'], `${path}: an agent rule DENY hides the tool for that agent`);
  }
});

t.test("upstream: the upstream's answer untouched; the gates that are not rules still apply", async (t) => {
  const x = await setUp(t);
  await setMode(x, 'upstream');
  const all = ['delete_file', 'get_weather', 'newcomer', 'ping', 'progress'];
  for (const path of PATHS) t.same(await listed(x, path, true), all, `${path}: everything the upstream lists`);
  const headers = { 'mcp-protocol-version': '2025-11-25', accept: 'application/json, text/event-stream' };
  const message = { jsonrpc: '2.0', id: 'l', method: 'tools/list' };
  const direct = await fetch(x.upstreamUrl, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(message),
  });
  const proxied = await x.px.rpc(x.serverId, message, { headers });
  t.same(
    answerOf(proxied),
    answerOf({ status: direct.status, headers: direct.headers, body: null, text: await direct.text() }),
    'the same answer as the upstream gives directly',
  );

  await x.px.gw.api('POST', `/api/v1/agents/${x.agent}/suspend`, { body: { reason: 'test' } });
  const refused = await x.px.rpc(x.serverId, message, { headers: { 'x-agent-id': x.agent } });
  t.match(
    refused.body.error,
    { code: -32003, data: { reason: 'AGENT_EMERGENCY_STOP' } },
    'an agent that may not act is refused, not listed to',
  );
});

t.test('a change of the setting applies at once on the daemon that made it, and on another once notified', async (t) => {
  const x = await setUp(t);
  const d2 = await startTestGateway(t, { databaseUrl: x.px.gw.databaseUrl, env: PROXY_ENV });
  const onD2 = async (): Promise<string[]> => {
    const res = await d2.api('POST', `/api/v1/mcp/proxy/${x.serverId}`, {
      token: x.px.gw.adminToken,
      body: { jsonrpc: '2.0', id: 'l', method: 'tools/list' },
    });
    return answerOf(res)
      .result!.tools.map((tool) => tool.name)
      .sort();
  };
  t.same(await listed(x, 'gateway session'), ['delete_file', 'get_weather', 'progress'], 'daemon 1, admitted');
  t.same(await onD2(), ['delete_file', 'get_weather', 'progress'], 'daemon 2, admitted');
  t.same(await onD2(), ['delete_file', 'get_weather', 'progress'], 'daemon 2 again (from its cache)');
  await setMode(x, 'callable');
  t.same(await listed(x, 'gateway session'), ['get_weather', 'progress'], 'daemon 1 lists by the new setting at once');
  t.ok(
    await eventually(async () => JSON.stringify(await onD2()) === JSON.stringify(['get_weather', 'progress'])),
    'daemon 2 once the notification arrives',
  );
});
