// The command center's arithmetic and windows, as pure functions: the formulas the README states.
import t from 'tap';
import { actionItems } from '../../daemon/command-center/action-items.js';
import { contentTypeColor, policyColor } from '../../daemon/command-center/colors.js';
import { anomalies, costsAndContract, governanceScore, kpi, provable } from '../../daemon/command-center/formulas.js';
import { anomalyWindows, monthOf, pointLabel, windowOf } from '../../daemon/command-center/windows.js';

t.test('windows are aligned to their points; the last point is the current one; the previous window has the same length', async (t) => {
  const now = new Date('2025-03-10T14:37:21.500Z');
  const h1 = windowOf('1h', now);
  t.equal(h1.end.toISOString(), '2025-03-10T14:38:00.000Z');
  t.equal(h1.start.toISOString(), '2025-03-10T13:38:00.000Z');
  t.equal(h1.previousStart.toISOString(), '2025-03-10T12:38:00.000Z');
  t.equal(h1.coarsest, 'minute');
  t.same(pointLabel(h1, 59), { label: '14:37', start: '2025-03-10T14:37:00.000Z' });
  const d7 = windowOf('7d', now);
  t.equal(d7.end.toISOString(), '2025-03-10T18:00:00.000Z');
  t.equal(d7.start.toISOString(), '2025-03-03T18:00:00.000Z');
  t.equal(pointLabel(d7, 0).label, '03-03 18:00');
  const d30 = windowOf('30d', now);
  t.equal(d30.end.toISOString(), '2025-03-11T00:00:00.000Z');
  t.equal(d30.start.toISOString(), '2025-02-09T00:00:00.000Z');
  t.equal(pointLabel(d30, 29).label, '03-10');
  t.equal(windowOf('6h', now).pointMs, 300_000);
  t.equal(windowOf('24h', now).coarsest, 'hour');
  t.equal(d30.coarsest, 'day');
  t.same(monthOf(now), { start: new Date('2025-03-01T00:00:00Z'), until: new Date('2025-03-10T15:00:00Z'), dayOfMonth: 10 });
  const a = anomalyWindows(now);
  t.equal(a.recentStart.toISOString(), '2025-03-10T13:38:00.000Z');
  t.equal(a.baselineEnd.toISOString(), '2025-03-10T13:00:00.000Z');
  t.equal(a.baselineStart.toISOString(), '2025-03-03T13:00:00.000Z');
});

t.test('kpi: delta is value minus previous; delta_percent null without a previous value', async (t) => {
  t.same(kpi(150, 100), { value: 150, delta: 50, previous: 100, delta_percent: 50 });
  t.same(kpi(0, 3), { value: 0, delta: -3, previous: 3, delta_percent: -100 });
  t.same(kpi(7, 0), { value: 7, delta: 7, previous: 0, delta_percent: null });
  t.same(kpi(2, 3), { value: 2, delta: -1, previous: 3, delta_percent: -33.3 });
});

t.test('governance score: 40% traffic, 30% agents, 30% MCP; nothing to measure counts as 100', async (t) => {
  const none = { allow: 0, block: 0, flag: 0, agentsConsidered: 0, agentsUnsettled: 0, serversTotal: 0, serversWithFindings: 0 };
  t.same(governanceScore(none), { score: 100, components: { traffic: 100, agents: 100, mcp: 100 } });
  // traffic 1 - (10 + 20/2) / 100 = 0.8; agents 1 - 1/4 = 0.75; mcp 1 - 1/2 = 0.5
  t.same(
    governanceScore({ allow: 70, block: 10, flag: 20, agentsConsidered: 4, agentsUnsettled: 1, serversTotal: 2, serversWithFindings: 1 }),
    { score: Math.round(100 * (0.4 * 0.8 + 0.3 * 0.75 + 0.3 * 0.5)), components: { traffic: 80, agents: 75, mcp: 50 } },
  );
  t.equal(governanceScore({ ...none, block: 5 }).score, 60, 'all traffic blocked: the traffic part is 0');
});

t.test('anomalies: 3x an own baseline and a minimum volume; ratio null without a baseline', async (t) => {
  const hours = 168;
  const names = new Map([
    ['a', 'alpha'],
    ['b', 'beta'],
  ]);
  // a: 40 in the last hour vs 168 in 7 days (1/h); b: 25 vs 10/h; '' = blocks: 12 vs 0.
  const found = anomalies(
    new Map([
      ['a', 40],
      ['b', 25],
      ['c', 19],
      ['', 12],
    ]),
    new Map([
      ['a', 168],
      ['b', 1680],
      ['', 0],
    ]),
    hours,
    names,
  );
  t.same(
    found,
    [
      { type: 'block_burst', blocks_last_hour: 12, baseline_per_hour: 0, ratio: null },
      { type: 'agent_request_spike', agent_id: 'a', name: 'alpha', requests_last_hour: 40, baseline_per_hour: 1, ratio: 40 },
    ],
    'b is under 3x its baseline, c under the minimum volume',
  );
  t.same(anomalies(new Map([['', 9]]), new Map(), hours, names), [], 'nine blocks are no burst');
  t.same(anomalies(new Map([['', 29]]), new Map([['', 1680]]), hours, names), [], '29 blocks against 10/h is under 3x');
  t.equal(anomalies(new Map([['', 30]]), new Map([['', 1680]]), hours, names).length, 1, '30 is 3x');
});

t.test('costs and contract: overage over the included requests, priced per 1000, the month so far', async (t) => {
  const plan = { tier: 'business', included_requests: 1000, monthly_base_fee_eur: 300, overage_eur_per_1000: 4 };
  const start = new Date('2025-03-01T00:00:00Z');
  t.same(costsAndContract(plan, 3500, 10, start), {
    costs: { daily_estimate_eur: 31, monthly_requests: 3500, monthly_base_fee: 300, overage_cost: 10, total_estimate_eur: 310 },
    contract: {
      tier: 'business',
      period_start: '2025-03-01T00:00:00.000Z',
      included_requests: 1000,
      used_requests: 3500,
      utilization_percent: 350,
      overage: 2500,
    },
  });
  t.match(costsAndContract(plan, 400, 1, start), {
    costs: { overage_cost: 0, total_estimate_eur: 300, daily_estimate_eur: 300 },
    contract: { overage: 0, utilization_percent: 40 },
  });
  t.match(costsAndContract({ ...plan, included_requests: 0 }, 0, 1, start).contract, { utilization_percent: 0 });
  t.match(costsAndContract({ ...plan, included_requests: 0 }, 5, 1, start).contract, { utilization_percent: 100, overage: 5 });
});

t.test('proofs: the traces after the latest checkpoint are the newest, in the current window first', async (t) => {
  t.same(provable(10, 20, 0), { current: 10, previous: 20 });
  t.same(provable(10, 20, 4), { current: 6, previous: 20 });
  t.same(provable(10, 20, 15), { current: 0, previous: 15 });
  t.same(provable(10, 20, 100), { current: 0, previous: 0 });
});

t.test('action items: each exactly when its count is above zero, most severe first', async (t) => {
  const zero = {
    serversScanFailed: 0,
    scanFailed: [],
    poisoningSuspects: 0,
    toolsChanged: 0,
    approvalsOpen: 0,
    agentsPending: 0,
    serversPending: 0,
    anomalies: 0,
  };
  t.same(actionItems(zero), []);
  t.same(
    actionItems({ ...zero, serversScanFailed: 1, scanFailed: [{ id: 's', name: 'n' }] }).map((i) => [i.type, i.count, i.servers]),
    [['mcp_server_scan_failed', 1, [{ id: 's', name: 'n' }]]],
  );
  t.same(
    actionItems({
      ...zero,
      approvalsOpen: 2,
      poisoningSuspects: 1,
      serversPending: 3,
      agentsPending: 1,
      toolsChanged: 1,
      anomalies: 1,
    }).map((i) => i.type),
    [
      'mcp_poisoning_suspects',
      'mcp_tools_changed',
      'anomalies_detected',
      'approvals_pending',
      'agents_pending_approval',
      'mcp_servers_pending_approval',
    ],
  );
});

t.test('colours: a prompt policy by its action, an MCP rule by its rule, unknown grey', async (t) => {
  t.equal(policyColor('Secrets', 'BLOCK'), '#dc2626');
  t.equal(policyColor('Personal data', 'REDACT'), '#2563eb');
  t.equal(policyColor('MCP DENY: delete_file', undefined), '#dc2626');
  t.equal(policyColor('MCP REQUIRE_APPROVAL: send', undefined), '#7c3aed');
  t.equal(policyColor('deleted policy', undefined), '#6b7280');
  t.equal(contentTypeColor('image'), '#a855f7');
  t.equal(contentTypeColor('hologram'), '#6b7280');
});
