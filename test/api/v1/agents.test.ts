import t from 'tap';
import { AgentActivity } from '../../../daemon/agents/activity.js';
import { PROFILE_MODELS } from '../../../daemon/agents/capability.js';
import { AGENT_OPERATIONS, AGENT_STATUSES, nextStatus, type AgentStatus } from '../../../daemon/agents/lifecycle.js';
import { startTestGateway, type TestGateway } from '../../helpers/gateway.js';

const FULL_REGISTRATION = {
  name: 'support bot',
  description: 'answers tickets',
  agent_type: 'chatbot',
  model: 'gpt-x',
  risk_classification: 'limited',
  purpose_description: 'customer support',
  intended_purpose: 'answer questions',
  intended_users: 'customers',
  known_limitations: 'no refunds',
  requires_human_oversight: true,
  annex_iii_domain: 'none',
  prohibited_screen_result: 'clear',
  provider_or_deployer: 'deployer',
  responsible_person_id: 'u1',
  technical_lead_id: 'u2',
  approval_authority_id: 'u3',
  tags: ['support'],
  permissions: ['tickets:read'],
  infrastructure_permissions: { network: 'internal' },
  framework: 'langchain',
  protection_profile: 'balanced',
};

// biome-ignore lint/suspicious/noExplicitAny: agent bodies read field by field in the assertions
async function register(gw: TestGateway, body: Record<string, unknown> = { name: 'agent' }): Promise<Record<string, any>> {
  const res = await gw.api('POST', '/api/v1/agents', { body });
  if (res.status !== 201) throw new Error(`register failed: ${res.text}`);
  return res.body;
}

const PATH_TO: Record<AgentStatus, string[]> = {
  PENDING_APPROVAL: [],
  ACTIVE: ['approve'],
  PAUSED: ['approve', 'pause'],
  SUSPENDED: ['approve', 'suspend'],
  REJECTED: ['reject'],
  REVOKED: ['revoke'],
};

async function agentIn(gw: TestGateway, status: AgentStatus): Promise<string> {
  const agent = await register(gw);
  for (const op of PATH_TO[status]) {
    const res = await gw.api('POST', `/api/v1/agents/${agent.id}/${op}`);
    if (res.status !== 200) throw new Error(`${op} failed: ${res.text}`);
  }
  return agent.id;
}

async function snapshot(gw: TestGateway, id: string) {
  const [agent] = await gw.db`select * from agents where id = ${id}`;
  const [{ traces }] = await gw.db`select count(*)::int as traces from traces`;
  const [{ admin }] = await gw.db`select count(*)::int as admin from admin_log`;
  return { agent, traces, admin };
}

t.test('register: every field, 201 in PENDING_APPROVAL, a CUID, no key of any kind', async (t) => {
  const gw = await startTestGateway(t);
  const res = await gw.api('POST', '/api/v1/agents', {
    body: { ...FULL_REGISTRATION, agent_id: 'ignored', api_key: 'x' },
    token: await gw.key('editor'),
  });
  t.equal(res.status, 201);
  const a = res.body;
  t.match(a.id, /^[a-z][a-z0-9]{23}$/, 'a CUID2');
  t.equal(a.status, 'PENDING_APPROVAL');
  t.equal(a.risk_classification, 'LIMITED', 'risk classes are upper-cased');
  for (const [k, v] of Object.entries(FULL_REGISTRATION)) if (k !== 'risk_classification') t.same(a[k], v, k);
  t.same(a.capability_model, PROFILE_MODELS.balanced);
  t.notMatch(Object.keys(a).join(','), /key|token|secret/, 'no key of any kind');
  t.equal(a.request_count, 0);
  t.equal(a.last_seen_at, null);
  t.notOk('project_id' in a);
  const fetched = await gw.api('GET', `/api/v1/agents/${a.id}`);
  t.same(fetched.body, a);
});

t.test('register: fail-closed default profile; invalid input is 400 and writes nothing', async (t) => {
  const gw = await startTestGateway(t);
  const a = await register(gw, { name: 'plain' });
  t.equal(a.protection_profile, 'safe');
  t.same(a.capability_model, PROFILE_MODELS.safe);
  const viewer = await gw.key('viewer');
  const before = await snapshot(gw, a.id);
  for (const body of [
    {},
    { name: '' },
    { name: 'x', protection_profile: 'yolo' },
    { name: 'x', risk_classification: 'EXTREME' },
    { name: 'x', requires_human_oversight: 'yes' },
    { name: 'x', tags: 'one' },
  ]) {
    const res = await gw.api('POST', '/api/v1/agents', { body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.error.code, 'validation_error');
  }
  t.equal((await gw.api('POST', '/api/v1/agents', { body: { name: 'x' }, token: viewer })).status, 403, 'Viewer cannot register');
  const after = await snapshot(gw, a.id);
  t.same({ traces: after.traces, admin: after.admin }, { traces: before.traces, admin: before.admin });
  const [{ n }] = await gw.db`select count(*)::int as n from agents`;
  t.equal(n, 1);
});

t.test('every row of the transition table, Admin only, each recorded as a lifecycle trace', async (t) => {
  const gw = await startTestGateway(t);
  const editor = await gw.key('editor');
  for (const from of AGENT_STATUSES) {
    for (const op of AGENT_OPERATIONS) {
      const to = nextStatus(from, op);
      if (!to) continue;
      const id = await agentIn(gw, from);
      t.equal((await gw.api('POST', `/api/v1/agents/${id}/${op}`, { token: editor })).status, 403, `Editor cannot ${op}`);
      const res = await gw.api('POST', `/api/v1/agents/${id}/${op}`, { body: { reason: `because ${op}` } });
      t.equal(res.status, 200, `${from} --${op}-> ${to}`);
      t.equal(res.body.status, to);
      const [trace] = await gw.db`select * from traces where agent_id = ${id} order by sequence_num desc limit 1`;
      t.match(trace, { trace_type: 'AGENT_LIFECYCLE', decision: 'POLICY_CHANGE', action_name: `agent.${op}`, environment: 'prod' });
      t.match(trace.reason, `${from} -> ${to} by admin`);
      const [content] = await gw.db`select body from trace_content where trace_id = ${trace.id}`;
      t.match(content.body, { operation: op, from, to, reason: `because ${op}`, actor: { kind: 'user_token', id: 'admin' } });
    }
  }
  const chain = await gw.api('GET', '/api/v1/ledger/verify-chain?stream=traces');
  t.equal(chain.body.intact, true);
});

t.test('every operation outside the table is 409 agent_transition_invalid and writes nothing', async (t) => {
  const gw = await startTestGateway(t);
  for (const from of AGENT_STATUSES) {
    const id = await agentIn(gw, from);
    for (const op of AGENT_OPERATIONS) {
      if (nextStatus(from, op)) continue;
      const before = await snapshot(gw, id);
      const res = await gw.api('POST', `/api/v1/agents/${id}/${op}`);
      t.equal(res.status, 409, `${from} --${op}-> refused`);
      t.equal(res.body.error.code, 'agent_transition_invalid');
      t.same(await snapshot(gw, id), before, 'nothing changed');
    }
  }
});

t.test('unknown agent: 404 not_found on read, update and every transition', async (t) => {
  const gw = await startTestGateway(t);
  t.equal((await gw.api('GET', '/api/v1/agents/nosuchagent')).body.error.code, 'not_found');
  t.equal((await gw.api('PATCH', '/api/v1/agents/nosuchagent', { body: { name: 'x' } })).status, 404);
  for (const op of AGENT_OPERATIONS) t.equal((await gw.api('POST', `/api/v1/agents/nosuchagent/${op}`)).status, 404, op);
});

t.test('an UNACCEPTABLE agent cannot be approved', async (t) => {
  const gw = await startTestGateway(t);
  const a = await register(gw, { name: 'social scoring', risk_classification: 'UNACCEPTABLE' });
  const before = await snapshot(gw, a.id);
  const res = await gw.api('POST', `/api/v1/agents/${a.id}/approve`);
  t.equal(res.status, 409);
  t.equal(res.body.error.code, 'agent_risk_prohibited');
  t.same(await snapshot(gw, a.id), before);
  t.equal((await gw.api('POST', `/api/v1/agents/${a.id}/reject`)).body.status, 'REJECTED');
});

t.test('PATCH changes exactly the updatable fields; unknown fields are ignored', async (t) => {
  const gw = await startTestGateway(t);
  const a = await register(gw, FULL_REGISTRATION);
  const ignoredOnly = await gw.api('PATCH', `/api/v1/agents/${a.id}`, {
    body: {
      risk_level: 'HIGH',
      technical_maintainer_id: 'u9',
      data_protection_level: 'max',
      agent_type: 'other',
      model: 'other',
      tags: ['x'],
      id: 'hijack',
    },
  });
  t.equal(ignoredOnly.status, 200);
  t.same(ignoredOnly.body, a, 'misspelt or non-updatable fields leave everything unchanged');
  const patch = {
    name: 'renamed',
    description: 'new',
    risk_classification: 'HIGH',
    requires_human_oversight: false,
    permitted_tools: ['search'],
    fria_assessment: { done: true },
    transparency_disclosure: { text: 'AI' },
    responsible_person_id: 'p1',
    technical_lead_id: 'p2',
    approval_authority_id: 'p3',
    infrastructure_permissions: { network: 'none' },
    framework: 'crewai',
    capability_model: { ...PROFILE_MODELS.safe, profile: 'custom' },
    risk_level: 'LOW',
  };
  const res = await gw.api('PATCH', `/api/v1/agents/${a.id}`, { body: patch });
  t.equal(res.status, 200);
  const { risk_level: _ignored, ...applied } = patch;
  for (const [k, v] of Object.entries(applied)) t.same(res.body[k], v, k);
  t.equal(res.body.agent_type, a.agent_type);
  t.notOk('risk_level' in res.body);
  const log = await gw.api('GET', '/api/v1/admin-log');
  t.equal(log.body.entries.at(-1).action, 'agent.update');
});

t.test('PATCH status follows the lifecycle table and needs Admin; a refused PATCH changes nothing', async (t) => {
  const gw = await startTestGateway(t);
  const editor = await gw.key('editor');
  const a = await register(gw);
  t.equal((await gw.api('PATCH', `/api/v1/agents/${a.id}`, { token: editor, body: { status: 'ACTIVE' } })).status, 403);
  t.equal(
    (await gw.api('PATCH', `/api/v1/agents/${a.id}`, { token: editor, body: { capability_model: PROFILE_MODELS.full_access } })).status,
    403,
    'loosening the model needs Admin',
  );
  t.equal((await gw.api('PATCH', `/api/v1/agents/${a.id}`, { token: editor, body: { name: 'by editor' } })).body.name, 'by editor');
  const before = await snapshot(gw, a.id);
  const illegal = await gw.api('PATCH', `/api/v1/agents/${a.id}`, { body: { status: 'SUSPENDED', name: 'should not stick' } });
  t.equal(illegal.status, 409);
  t.equal(illegal.body.error.code, 'agent_transition_invalid');
  t.same(await snapshot(gw, a.id), before, 'neither status nor name changed');
  const ok = await gw.api('PATCH', `/api/v1/agents/${a.id}`, { body: { status: 'ACTIVE' } });
  t.equal(ok.body.status, 'ACTIVE');
  const suspended = await gw.api('PATCH', `/api/v1/agents/${a.id}`, { body: { status: 'SUSPENDED', suspended_reason: 'leaking data' } });
  t.equal(suspended.body.status, 'SUSPENDED');
  t.equal(suspended.body.suspended_reason, 'leaking data');
  const [trace] = await gw.db`select action_name from traces where agent_id = ${a.id} order by sequence_num desc limit 1`;
  t.equal(trace.action_name, 'agent.suspend', 'a PATCH transition is recorded like the route');
  t.equal(
    (await gw.api('PATCH', `/api/v1/agents/${a.id}`, { body: { status: 'PAUSED' } })).status,
    409,
    'SUSPENDED cannot become PAUSED by PATCH',
  );
  await gw.api('POST', `/api/v1/agents/${a.id}/revoke`);
  t.equal(
    (await gw.api('PATCH', `/api/v1/agents/${a.id}`, { body: { status: 'ACTIVE' } })).status,
    409,
    'REVOKED is terminal through PATCH too',
  );
  const direct = await gw.db`update agents set status = 'ACTIVE' where id = ${a.id}`.then(
    () => 'updated',
    (e: { code?: string }) => e.code,
  );
  t.equal(direct, 'GW002', 'even a direct UPDATE cannot leave REVOKED');
  t.equal(
    (await gw.api('PATCH', `/api/v1/agents/${a.id}`, { body: { capability_model: { profile: 'safe' } } })).status,
    400,
    'an incomplete capability model is refused',
  );
});

t.test('list: filters, oldest first, cursor pages, activity metadata', async (t) => {
  const gw = await startTestGateway(t);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await register(gw, { name: `a${i}`, risk_classification: i % 2 ? 'HIGH' : 'MINIMAL' })).id);
  await gw.api('POST', `/api/v1/agents/${ids[0]}/approve`);
  const all = await gw.api('GET', '/api/v1/agents', { token: await gw.key('viewer') });
  t.same(
    all.body.agents.map((a: { id: string }) => a.id),
    ids,
  );
  t.equal(all.body.next_cursor, null);
  for (const k of ['status', 'risk_classification', 'last_seen_at', 'request_count', 'requests_today']) t.ok(k in all.body.agents[0], k);
  t.same(
    (await gw.api('GET', '/api/v1/agents?status=ACTIVE')).body.agents.map((a: { id: string }) => a.id),
    [ids[0]],
  );
  t.same(
    (await gw.api('GET', '/api/v1/agents?risk_classification=high')).body.agents.map((a: { id: string }) => a.id),
    [ids[1], ids[3]],
  );
  const page1 = await gw.api('GET', '/api/v1/agents?limit=2');
  t.same(
    page1.body.agents.map((a: { id: string }) => a.id),
    ids.slice(0, 2),
  );
  const page2 = await gw.api('GET', `/api/v1/agents?limit=2&cursor=${page1.body.next_cursor}`);
  t.same(
    page2.body.agents.map((a: { id: string }) => a.id),
    ids.slice(2, 4),
  );
  t.equal((await gw.api('GET', '/api/v1/agents?status=DANCING')).status, 400);
  t.equal((await gw.api('GET', '/api/v1/agents?limit=5000')).status, 400);

  const activity = new AgentActivity(gw.gateway.sql);
  for (let i = 0; i < 7; i++) activity.record('default', ids[0]!);
  activity.record('default', 'not-an-agent');
  const [{ before }] = await gw.db`select request_count::int as before from agents where id = ${ids[0]}`;
  t.equal(before, 0, 'recording writes nothing by itself');
  await activity.flush();
  const shown = (await gw.api('GET', `/api/v1/agents/${ids[0]}`)).body;
  t.equal(shown.request_count, 7);
  t.equal(shown.requests_today, 7);
  t.ok(Date.now() - Date.parse(shown.last_seen_at) < 60_000);
  activity.record('default', ids[0]!);
  await activity.flush();
  t.equal((await gw.api('GET', `/api/v1/agents/${ids[0]}`)).body.requests_today, 8);
});
