import t from 'tap';
import { startTestGateway } from '../../helpers/gateway.js';

const SETTINGS = [
  'approval_wait_seconds',
  'attestation_enabled',
  'audit_detail_level',
  'created_at',
  'id',
  'included_requests',
  'mcp_tools_list',
  'monthly_base_fee_eur',
  'name',
  'overage_eur_per_1000',
  'rate_limit_per_minute',
  'retention_days',
  'tier',
  'updated_at',
];

t.test('GET /project shows the contract settings to any role', async (t) => {
  const gw = await startTestGateway(t);
  const res = await gw.api('GET', '/api/v1/project', { token: await gw.key('viewer') });
  t.equal(res.status, 200);
  t.same(Object.keys(res.body).sort(), SETTINGS);
  t.equal(res.body.name, 'default');
  t.equal(res.body.audit_detail_level, 'standard');
  t.equal(res.body.mcp_tools_list, 'admitted', 'tools/list lists admitted, unchanged tools by default');
  t.equal(res.body.approval_wait_seconds, 0, 'a held MCP call is answered -32004 at once by default (the spec)');
});

t.test('PATCH /project changes the given settings and logs the change', async (t) => {
  const gw = await startTestGateway(t);
  const res = await gw.api('PATCH', '/api/v1/project', {
    body: { audit_detail_level: 'full', retention_days: 30, attestation_enabled: true, monthly_base_fee_eur: 49.5 },
  });
  t.equal(res.status, 200);
  t.equal(res.body.audit_detail_level, 'full');
  t.equal(res.body.retention_days, 30);
  t.equal(res.body.attestation_enabled, true);
  t.equal(res.body.monthly_base_fee_eur, 49.5);
  const log = await gw.api('GET', '/api/v1/admin-log');
  const entry = log.body.entries.at(-1);
  t.equal(entry.action, 'project.settings.update');
  t.same(entry.details.changed.retention_days, { from: 90, to: 30 });
  const mode = await gw.api('PATCH', '/api/v1/project', { body: { mcp_tools_list: 'callable' } });
  t.equal(mode.body.mcp_tools_list, 'callable');
  t.same((await gw.api('GET', '/api/v1/admin-log')).body.entries.at(-1).details.changed, {
    mcp_tools_list: { from: 'admitted', to: 'callable' },
  });
  const wait = await gw.api('PATCH', '/api/v1/project', { body: { approval_wait_seconds: 900 } });
  t.equal(wait.body.approval_wait_seconds, 900, 'the maximum is allowed');
});

t.test('an invalid PATCH is 400 naming the field and changes nothing', async (t) => {
  const gw = await startTestGateway(t);
  const before = await gw.api('GET', '/api/v1/project');
  for (const body of [
    { audit_detail_level: 'everything' },
    { mcp_tools_list: 'all' },
    { approval_wait_seconds: 901 },
    { approval_wait_seconds: -1 },
    { approval_wait_seconds: 1.5 },
    { retention_days: 0 },
    { retention_days: 'ten' },
    { rate_limit_per_minute: -1 },
    { unknown_setting: 1 },
    {},
    { name: 'ok', tier: '' },
  ]) {
    const res = await gw.api('PATCH', '/api/v1/project', { body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.error.code, 'validation_error');
    const field = Object.keys(body).find((k) => k !== 'name');
    if (field) t.match(res.body.error.message, field, `message names ${field}`);
  }
  const after = await gw.api('GET', '/api/v1/project');
  t.same(after.body, before.body);
  const log = await gw.api('GET', '/api/v1/admin-log');
  t.equal(log.body.entries.length, 1, 'only the bootstrap entry');
});

t.test('rate limit: over the plan gives 429 rate_limited with Retry-After, shared by all daemons', async (t) => {
  const first = await startTestGateway(t);
  const second = await startTestGateway(t, { databaseUrl: first.databaseUrl });
  const key = await first.key('viewer');
  t.equal((await first.api('PATCH', '/api/v1/project', { body: { rate_limit_per_minute: 4 } })).status, 200);
  // The budget is per wall-clock minute: if a minute boundary falls inside the sequence, run it again.
  for (let attempt = 0; attempt < 3; attempt++) {
    await first.db`delete from rate_windows`;
    const minute = Math.floor(Date.now() / 60_000);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await (i % 2 ? second : first).api('GET', '/api/v1/project', { token: key })).status);
    if (Math.floor(Date.now() / 60_000) !== minute && attempt < 2) continue;
    t.same(statuses, [200, 200, 200, 200, 429, 429], 'the 5th request across both daemons is refused');
    break;
  }
  const refused = await second.api('GET', '/api/v1/project', { token: key });
  t.equal(refused.status, 429);
  t.equal(refused.body.error.code, 'rate_limited');
  t.match(refused.headers.get('retry-after'), /^\d+$/);
  t.ok(Number(refused.headers.get('retry-after')) >= 1 && Number(refused.headers.get('retry-after')) <= 60);
  const operator = await first.api('PATCH', '/api/v1/project', { body: { rate_limit_per_minute: 1000 } });
  t.equal(operator.status, 200, 'an Admin user can always raise the limit');
  t.equal((await second.api('GET', '/api/v1/project', { token: key })).status, 200);
});
