// GET /mcp/servers/{id}/tools as the contract and the spec read it (issue 15, items 1-3): oldest
// first, a proposal only while a tool waits for admission, and a verdict is an Admin's confirmation.
// Also pins that the other lists the contract names (servers, agents, policies) are oldest first.
import t, { type Test } from 'tap';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';
import { SAMPLE_TOOLS, startLegacyMcpServer, type ToolDef } from '../../helpers/mcp-servers.js';

const ALLOW = { GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_UPSTREAM_TIMEOUT_SECONDS: '2' };

interface Tool {
  id: string;
  name: string;
  present: boolean;
  current_fingerprint: string;
  matches_approved: boolean | null;
  proposed_rule: string | null;
  proposed_rule_source: string | null;
  is_auto_generated: boolean;
  policy_action: string | null;
}

const tool = (name: string, description = `Tool ${name}.`): ToolDef => ({ name, description, inputSchema: { type: 'object' } });

/** A registered server whose upstream serves `served` by reference: changing the array changes the next scan. */
async function serverOf(
  t: Test,
  gw: TestGateway,
  served: ToolDef[],
): Promise<{ id: string; scan(): Promise<void>; tools(): Promise<Tool[]> }> {
  const upstream = await startLegacyMcpServer(t, { tools: served });
  const s = (await gw.api('POST', '/api/v1/mcp/servers', { body: { name: `s-${Math.random()}`, server_url: upstream.url } })).body;
  const scan = async () => {
    t.equal((await gw.api('POST', `/api/v1/mcp/servers/${s.id}/scan`)).body.scanned, true, 'scanned');
  };
  const tools = async () => (await gw.api('GET', `/api/v1/mcp/servers/${s.id}/tools`)).body.tools as Tool[];
  await scan();
  return { id: s.id as string, scan, tools };
}

t.test(
  "the tool list is oldest first: a later scan's new tool comes last whatever its name; one scan keeps the upstream's order",
  async (t) => {
    const gw = await startTestGateway(t, { env: ALLOW });
    const served = [tool('zulu'), tool('mike')];
    const s = await serverOf(t, gw, served);
    t.same(
      (await s.tools()).map((x) => x.name),
      ['zulu', 'mike'],
      'one scan: in the order the upstream listed them',
    );
    served.push(tool('alpha'));
    await s.scan();
    t.same(
      (await s.tools()).map((x) => x.name),
      ['zulu', 'mike', 'alpha'],
      'a tool found by a later scan comes after those found before',
    );
    served.splice(0, 1);
    await s.scan();
    const after = await s.tools();
    t.same(
      after.map((x) => [x.name, x.present]),
      [
        ['zulu', false],
        ['mike', true],
        ['alpha', true],
      ],
      'a vanished tool keeps its place',
    );
  },
);

t.test('servers, agents, MCP policies and prompt policies are listed oldest first', async (t) => {
  const gw = await startTestGateway(t, { env: ALLOW });
  const later = async (
    kind: string,
    create: (name: string) => Promise<{ status: number; body: { id: string } }>,
    list: () => Promise<{ id: string }[]>,
  ) => {
    const first = await create('zz-first');
    const second = await create('aa-second');
    t.same([first.status, second.status], [201, 201], `${kind} created`);
    const ids = (await list()).map((x) => x.id).filter((id) => id === first.body.id || id === second.body.id);
    t.same(ids, [first.body.id, second.body.id], `${kind}: the older first`);
  };
  await later(
    'servers',
    (name) => gw.api('POST', '/api/v1/mcp/servers', { body: { name, server_url: 'https://mcp.example.com' } }),
    async () => (await gw.api('GET', '/api/v1/mcp/servers')).body.servers,
  );
  await later(
    'agents',
    (name) => gw.api('POST', '/api/v1/agents', { body: { name } }),
    async () => (await gw.api('GET', '/api/v1/agents')).body.agents,
  );
  const s = await serverOf(t, gw, [tool('zulu'), tool('alpha')]);
  const [zulu, alpha] = await s.tools();
  const ids = [zulu!.id, alpha!.id];
  await later(
    'MCP policies',
    async (name) => gw.api('POST', '/api/v1/mcp/policies', { body: { action: 'DENY', mcp_tool_id: ids[name.startsWith('zz') ? 1 : 0] } }),
    async () => (await gw.api('GET', '/api/v1/mcp/policies')).body.policies,
  );
  await later(
    'prompt policies',
    (name) => gw.api('POST', '/api/v1/verify/policies', { body: { name, detector: 'keywords', action: 'FLAG', config: { words: ['x'] } } }),
    async () => (await gw.api('GET', '/api/v1/verify/policies')).body.policies,
  );
});

t.test('a proposal exists only for a waiting tool: null after admission, back when the tool changes, null once it vanishes', async (t) => {
  const gw = await startTestGateway(t, { env: ALLOW });
  const served = SAMPLE_TOOLS.map((x) => ({ ...x }));
  const s = await serverOf(t, gw, served);
  const waiting = await s.tools();
  t.ok(
    waiting.every((x) => x.proposed_rule !== null && x.proposed_rule_source !== null),
    'every tool of a first scan waits and has a proposal',
  );
  const body = { tools: waiting.map((x) => ({ tool_id: x.id, rule: x.proposed_rule, fingerprint: x.current_fingerprint })) };
  t.equal((await gw.api('POST', `/api/v1/mcp/servers/${s.id}/activate`, { body })).status, 200, 'admitted with the proposals');
  const admitted = await s.tools();
  for (const x of admitted) {
    t.match(x, { matches_approved: true, proposed_rule: null, proposed_rule_source: null }, `${x.name}: admitted, no proposal`);
    t.equal(x.policy_action, waiting.find((w) => w.id === x.id)!.proposed_rule, `${x.name}: the rule in force is the one sent`);
  }
  t.equal((await s.tools()).filter((x) => x.proposed_rule !== null).length, 0);

  served[1]!.description = 'Deletes a file, and more.';
  served.push(tool('newcomer'));
  await s.scan();
  const rescanned = new Map((await s.tools()).map((x) => [x.name, x]));
  t.match(
    rescanned.get('delete_file'),
    { matches_approved: false, proposed_rule: String, proposed_rule_source: String },
    'changed since admission: waiting again, proposal shown',
  );
  t.match(
    rescanned.get('newcomer'),
    { matches_approved: null, proposed_rule: String, proposed_rule_source: String },
    'never admitted: waiting',
  );
  t.match(
    rescanned.get('get_weather'),
    { matches_approved: true, proposed_rule: null, proposed_rule_source: null },
    'unchanged: still none',
  );

  served.splice(
    served.findIndex((x) => x.name === 'newcomer'),
    1,
  );
  await s.scan();
  t.match(
    (await s.tools()).find((x) => x.name === 'newcomer'),
    { present: false, proposed_rule: null, proposed_rule_source: null },
    'a vanished tool waits for nothing',
  );
});

t.test("a verdict is an Admin's confirmation: is_auto_generated becomes false", async (t) => {
  const gw = await startTestGateway(t, { env: ALLOW });
  const s = await serverOf(t, gw, [tool('alpha'), tool('bravo')]);
  const [alpha, bravo] = await s.tools();
  t.same([alpha!.is_auto_generated, bravo!.is_auto_generated], [true, true], "a scan's tools are the system's");
  const verdict = await gw.api('POST', `/api/v1/mcp/servers/${s.id}/tools/${alpha!.id}/verdict`, { body: { action: 'LOG_ONLY' } });
  t.equal(verdict.status, 200);
  const after = new Map((await s.tools()).map((x) => [x.name, x]));
  t.match(
    after.get('alpha'),
    { is_auto_generated: false, policy_action: 'LOG_ONLY', matches_approved: null },
    'confirmed by the Admin, still not admitted',
  );
  t.equal(after.get('bravo')!.is_auto_generated, true, 'another tool is untouched');
});
