// The command center's query and response shapes (GET /api/v1/command-center), shared by the
// daemon and `gatewayctl dashboard`, and the extension webhook's body.
import { z } from 'zod';

export const CC_RANGES = ['1h', '6h', '24h', '7d', '30d'] as const;
export type CcRange = (typeof CC_RANGES)[number];

/** Not strict: unknown query keys are ignored (spec), so `time_range=7d` alone gives the 24h window. */
export const commandCenterQuery = z.object({
  range: z.enum(CC_RANGES).default('24h'),
});

export interface Kpi {
  value: number;
  /** value minus the previous window's value (same length, just before this one). */
  delta: number;
  previous: number;
  /** delta as a percentage of previous, one decimal; null when previous is 0. */
  delta_percent: number | null;
}

export interface TimelinePoint {
  label: string;
  start: string;
  allow: number;
  block: number;
  flag: number;
  total: number;
}
export interface TopPolicy {
  name: string;
  hits: number;
  color: string;
}
export interface AgentLoad {
  id: string;
  name: string;
  requests_today: number;
}
export interface TopAgent {
  id: string;
  name: string | null;
  status: string | null;
  requests: number;
  blocked: number;
  share_percent: number;
}
export type Anomaly =
  | {
      type: 'agent_request_spike';
      agent_id: string;
      name: string | null;
      requests_last_hour: number;
      baseline_per_hour: number;
      ratio: number | null;
    }
  | { type: 'block_burst'; blocks_last_hour: number; baseline_per_hour: number; ratio: number | null };
export interface LiveFeedItem {
  id: string;
  sequence_num: number;
  timestamp: string;
  trace_type: string;
  decision: string;
  reason: string | null;
  action_name: string | null;
  agent_id: string | null;
  environment: string;
  display_content: string;
  content_state: string;
}
export type Severity = 'critical' | 'high' | 'medium' | 'low';
export interface ActionItem {
  type: string;
  count: number;
  severity: Severity;
  message: string;
  servers?: { id: string; name: string }[];
}

export interface CommandCenter {
  range: CcRange;
  generated_at: string;
  window: { start: string; end: string; previous_start: string };
  kpis: {
    governance_score: number;
    governance_components: { traffic: number; agents: number; mcp: number };
    traces: Kpi;
    interceptions: Kpi;
    proofs: Kpi;
  };
  timeline: TimelinePoint[];
  top_policies: TopPolicy[];
  agents: { total: number; distribution: AgentLoad[]; top_agents: TopAgent[]; anomalies: Anomaly[] };
  mcp: {
    tool_calls: number;
    blocked: number;
    servers_total: number;
    servers_active: number;
    servers_scan_failed: number;
    pending_approvals: number;
    poisoning_suspects: number;
  };
  costs: {
    daily_estimate_eur: number;
    monthly_requests: number;
    monthly_base_fee: number;
    overage_cost: number;
    total_estimate_eur: number;
  };
  contract: {
    tier: string;
    period_start: string;
    included_requests: number;
    used_requests: number;
    utilization_percent: number;
    overage: number;
  };
  live_feed: LiveFeedItem[];
  action_items: ActionItem[];
  content_types: { content_type: string; count: number; color: string }[];
}

const label = z
  .string()
  .min(1)
  .max(200)
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

/**
 * POST /api/v1/webhooks/ingest: `event_type` and `source` are required strings; `event_id`,
 * `timestamp` (or `occurred_at`) are read when present; every other field is the event's payload.
 */
export const webhookEnvelope = z
  .object({
    event_type: label,
    source: label,
    event_id: label.optional(),
  })
  .loose();

export const IDEMPOTENCY_KEY = label;
