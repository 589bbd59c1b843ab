// The command center's arithmetic, as pure functions of counts: decision classes, KPIs with their
// deltas, the governance score, anomalies, costs and the contract. docs/command-center.md states each formula.
import type { Anomaly, Kpi } from '../../shared/command-center-schemas.js';
import type { Plan } from './state.js';

/** Timeline classes. Decisions outside them (POLICY_CHANGE) still count in `total`. */
export const ALLOW = new Set(['PASSED', 'ALLOWED', 'MODIFIED']);
export const BLOCK = new Set(['BLOCKED', 'ERROR']);
export const FLAG = new Set(['FLAGGED', 'PENDING_APPROVAL']);
/** Traffic the gateway stopped, changed, held or flagged. */
export const INTERCEPTED = new Set(['BLOCKED', 'ERROR', 'MODIFIED', 'FLAGGED', 'PENDING_APPROVAL']);

export function kpi(value: number, previous: number): Kpi {
  const delta = value - previous;
  return { value, delta, previous, delta_percent: previous === 0 ? null : Math.round((delta / previous) * 1000) / 10 };
}

export interface ScoreInputs {
  readonly allow: number;
  readonly block: number;
  readonly flag: number;
  readonly agentsConsidered: number;
  readonly agentsUnsettled: number;
  readonly serversTotal: number;
  readonly serversWithFindings: number;
}

const share = (bad: number, of: number): number => (of <= 0 ? 1 : Math.max(0, 1 - bad / of));

/**
 * 0..100: 40% traffic (1 - (block + flag/2) / decided), 30% agents (share neither waiting for
 * approval nor suspended), 30% MCP (share of servers without a failed scan, poisoning suspect or
 * tool changed since admission). A part with nothing to measure counts as 100.
 */
export function governanceScore(i: ScoreInputs): { score: number; components: { traffic: number; agents: number; mcp: number } } {
  const traffic = share(i.block + i.flag / 2, i.allow + i.block + i.flag);
  const agents = share(i.agentsUnsettled, i.agentsConsidered);
  const mcp = share(i.serversWithFindings, i.serversTotal);
  const pct = (x: number): number => Math.round(x * 100);
  return {
    score: Math.round(100 * (0.4 * traffic + 0.3 * agents + 0.3 * mcp)),
    components: { traffic: pct(traffic), agents: pct(agents), mcp: pct(mcp) },
  };
}

export const SPIKE_RATIO = 3;
export const AGENT_SPIKE_MIN = 20;
export const BLOCK_BURST_MIN = 10;

const ratio = (recent: number, baseline: number): number | null => (baseline > 0 ? Math.round((recent / baseline) * 10) / 10 : null);
const isSpike = (recent: number, baseline: number, min: number): boolean => recent >= min && recent >= SPIKE_RATIO * baseline;

/**
 * An agent whose requests in the last 60 minutes are at least 3x its own hourly mean over the 7
 * days before (and at least 20), and a burst of blocks by the same rule (at least 10). `recent` and
 * `baseline` map agent ids to counts, and '' to BLOCKED traces.
 */
export function anomalies(
  recent: ReadonlyMap<string, number>,
  baseline: ReadonlyMap<string, number>,
  baselineHours: number,
  names: ReadonlyMap<string, string>,
): Anomaly[] {
  const out: Anomaly[] = [];
  const perHour = (key: string): number => Math.round(((baseline.get(key) ?? 0) / baselineHours) * 100) / 100;
  const blocks = recent.get('') ?? 0;
  if (isSpike(blocks, perHour(''), BLOCK_BURST_MIN)) {
    out.push({ type: 'block_burst', blocks_last_hour: blocks, baseline_per_hour: perHour(''), ratio: ratio(blocks, perHour('')) });
  }
  const spikes: Extract<Anomaly, { type: 'agent_request_spike' }>[] = [];
  for (const [agentId, n] of recent) {
    if (agentId === '' || !isSpike(n, perHour(agentId), AGENT_SPIKE_MIN)) continue;
    spikes.push({
      type: 'agent_request_spike',
      agent_id: agentId,
      name: names.get(agentId) ?? null,
      requests_last_hour: n,
      baseline_per_hour: perHour(agentId),
      ratio: ratio(n, perHour(agentId)),
    });
  }
  spikes.sort((a, b) => b.requests_last_hour - a.requests_last_hour);
  return [...out, ...spikes.slice(0, 20)];
}

const eur = (x: number): number => Math.round(x * 100) / 100;

/** The calendar month (UTC) so far against the plan. */
export function costsAndContract(plan: Plan, used: number, dayOfMonth: number, periodStart: Date) {
  const overage = Math.max(0, used - plan.included_requests);
  const overageCost = eur((overage / 1000) * plan.overage_eur_per_1000);
  const total = eur(plan.monthly_base_fee_eur + overageCost);
  const utilization = plan.included_requests > 0 ? Math.round((used / plan.included_requests) * 1000) / 10 : used > 0 ? 100 : 0;
  return {
    costs: {
      daily_estimate_eur: eur(total / Math.max(1, dayOfMonth)),
      monthly_requests: used,
      monthly_base_fee: plan.monthly_base_fee_eur,
      overage_cost: overageCost,
      total_estimate_eur: total,
    },
    contract: {
      tier: plan.tier,
      period_start: periodStart.toISOString(),
      included_requests: plan.included_requests,
      used_requests: used,
      utilization_percent: utilization,
      overage,
    },
  };
}

/**
 * Traces of each window that the latest signed checkpoint covers (each has an inclusion proof).
 * The `uncovered` newest traces of the ledger are the ones after it; they fill the current window
 * first, then the previous one.
 */
export function provable(current: number, previous: number, uncovered: number): { current: number; previous: number } {
  const rest = Math.max(0, uncovered - current);
  return { current: Math.max(0, current - uncovered), previous: Math.max(0, previous - rest) };
}
