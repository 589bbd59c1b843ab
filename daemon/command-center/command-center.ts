// GET /api/v1/command-center: one aggregated read for dashboards. Traffic figures come from the
// pre-aggregated counters (never a scan of the traces), state figures from small tables, and the
// live feed from the newest traces by key; the pieces are read in parallel and combined here.
import type { CcRange, CommandCenter, LiveFeedItem, TimelinePoint, TopAgent } from '../../shared/command-center-schemas.js';
import type { Sql } from '../db/connect.js';
import { stuckEpochsFor } from '../anchor/status.js';
import { actionItems } from './action-items.js';
import { contentTypeColor, policyColor } from './colors.js';
import {
  agentAndBlockCounts,
  countBetween,
  dimCounts,
  pointCounts,
  pruneMinuteCounters,
  type DimCount,
  type PointCount,
} from './counter-reads.js';
import { REQUEST_TYPES } from '../ledger/counters.js';
import { ALLOW, anomalies, BLOCK, costsAndContract, FLAG, governanceScore, INTERCEPTED, kpi, provable } from './formulas.js';
import { liveFeed } from './live-feed.js';
import { rollUp, type Rolled } from './rollups.js';
import { agentNames, readState, type State } from './state.js';
import { anomalyWindows, monthOf, pointLabel, windowOf, type Window } from './windows.js';

const TOP_POLICIES = 10;
const TOP_AGENTS = 5;
const MINUTE_COUNTERS_KEPT_MS = 2 * 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

interface Totals {
  traces: number;
  interceptions: number;
  allow: number;
  block: number;
  flag: number;
  toolCalls: number;
  toolBlocked: number;
}

function emptyTotals(): Totals {
  return { traces: 0, interceptions: 0, allow: 0, block: 0, flag: 0, toolCalls: 0, toolBlocked: 0 };
}

function addTo(t: Totals, c: PointCount): void {
  t.traces += c.n;
  if (INTERCEPTED.has(c.decision)) t.interceptions += c.n;
  if (ALLOW.has(c.decision)) t.allow += c.n;
  if (BLOCK.has(c.decision)) t.block += c.n;
  if (FLAG.has(c.decision)) t.flag += c.n;
  if (c.traceType === 'MCP_TOOL_CALL') {
    t.toolCalls += c.n;
    if (c.decision === 'BLOCKED') t.toolBlocked += c.n;
  }
}

function timelineOf(w: Window, counts: readonly PointCount[]): { timeline: TimelinePoint[]; current: Totals; previous: Totals } {
  const timeline: TimelinePoint[] = Array.from({ length: w.points }, (_, i) => ({
    ...pointLabel(w, i),
    allow: 0,
    block: 0,
    flag: 0,
    total: 0,
  }));
  const current = emptyTotals();
  const previous = emptyTotals();
  for (const c of counts) {
    if (c.point < 0) {
      addTo(previous, c);
      continue;
    }
    const p = timeline[c.point];
    if (!p) continue;
    addTo(current, c);
    p.total += c.n;
    if (ALLOW.has(c.decision)) p.allow += c.n;
    else if (BLOCK.has(c.decision)) p.block += c.n;
    else if (FLAG.has(c.decision)) p.flag += c.n;
  }
  return { timeline, current, previous };
}

function sumByKey(dims: readonly DimCount[], dim: DimCount['dim'], pick: (d: DimCount) => boolean = () => true): Map<string, number> {
  const out = new Map<string, number>();
  for (const d of dims) if (d.dim === dim && pick(d)) out.set(d.key, (out.get(d.key) ?? 0) + d.n);
  return out;
}

const byCount = <T>(m: Map<string, T>, n: (v: T) => number): [string, T][] =>
  [...m].sort((a, b) => n(b[1]) - n(a[1]) || a[0].localeCompare(b[0]));

const lastPrune = new Map<string, number>();

/** Deletes minute counters older than two days that are rolled up into hours, at most once an hour per project and daemon, off the request's path. */
function pruneSometimes(sql: Sql, projectId: string, rolled: Rolled, onError: (err: unknown) => void): void {
  const last = lastPrune.get(projectId) ?? 0;
  if (Date.now() - last < PRUNE_EVERY_MS) return;
  lastPrune.set(projectId, Date.now());
  const before = Math.min(Date.now() - MINUTE_COUNTERS_KEPT_MS, rolled.hours);
  pruneMinuteCounters(sql, projectId, new Date(before)).catch(onError);
}

interface Reads {
  readonly points: PointCount[];
  readonly dims: DimCount[];
  readonly monthRequests: number;
  /** Requests per agent ('' = blocked requests of anyone): the last 60 minutes, and the 7 days before. */
  readonly recent: Map<string, number>;
  readonly baseline: Map<string, number>;
  readonly state: State;
  readonly feed: LiveFeedItem[];
}

async function readAll(sql: Sql, projectId: string, w: Window, now: Date, rolled: Rolled): Promise<Reads> {
  const month = monthOf(now);
  const aw = anomalyWindows(now);
  const [points, dims, monthRequests, recent, baseline, state, feed] = await Promise.all([
    pointCounts(sql, projectId, w, rolled),
    dimCounts(sql, projectId, w, rolled),
    countBetween(sql, projectId, month.start, month.until, REQUEST_TYPES, rolled),
    agentAndBlockCounts(sql, projectId, aw.recentStart, new Date(aw.recentStart.getTime() + 3_600_000), REQUEST_TYPES, rolled),
    agentAndBlockCounts(sql, projectId, aw.baselineStart, aw.baselineEnd, REQUEST_TYPES, rolled),
    readState(sql, projectId),
    liveFeed(sql, projectId),
  ]);
  return { points, dims, monthRequests, recent, baseline, state, feed };
}

/** Top agents of the window and the anomalies of the last hour, named. */
async function agentsPart(sql: Sql, projectId: string, r: Reads, baselineHours: number): Promise<CommandCenter['agents']> {
  const requests = sumByKey(r.dims, 'agent');
  const blocked = sumByKey(r.dims, 'agent', (d) => d.decision === 'BLOCKED');
  const topIds = byCount(requests, (n) => n)
    .slice(0, TOP_AGENTS)
    .map(([id]) => id);
  const names = await agentNames(sql, projectId, [...new Set([...topIds, ...[...r.recent.keys()].filter((k) => k !== '')])]);
  const all = [...requests.values()].reduce((a, b) => a + b, 0);
  const topAgents: TopAgent[] = topIds.map((id) => ({
    id,
    name: names.get(id)?.name ?? null,
    status: names.get(id)?.status ?? null,
    requests: requests.get(id)!,
    blocked: blocked.get(id) ?? 0,
    share_percent: all > 0 ? Math.round((requests.get(id)! / all) * 1000) / 10 : 0,
  }));
  const found = anomalies(r.recent, r.baseline, baselineHours, new Map([...names].map(([id, a]) => [id, a.name])));
  return { total: r.state.work.agents_total, distribution: r.state.distribution, top_agents: topAgents, anomalies: found };
}

function kpisPart(current: Totals, previous: Totals, state: State): CommandCenter['kpis'] {
  const proofs = provable(current.traces, previous.traces, Math.max(0, state.ledger.head - state.ledger.covered));
  const score = governanceScore({
    allow: current.allow,
    block: current.block,
    flag: current.flag,
    agentsConsidered: state.work.agents_total - state.work.agents_retired,
    agentsUnsettled: state.work.agents_pending + state.work.agents_suspended,
    serversTotal: state.mcp.servers_total,
    serversWithFindings: state.work.servers_with_findings,
  });
  return {
    governance_score: score.score,
    governance_components: score.components,
    traces: kpi(current.traces, previous.traces),
    interceptions: kpi(current.interceptions, previous.interceptions),
    proofs: kpi(proofs.current, proofs.previous),
  };
}

function mcpPart(current: Totals, state: State): CommandCenter['mcp'] {
  return {
    tool_calls: current.toolCalls,
    blocked: current.toolBlocked,
    servers_total: state.mcp.servers_total,
    servers_active: state.mcp.servers_active,
    servers_scan_failed: state.mcp.servers_scan_failed,
    pending_approvals: state.work.approvals_open_mcp,
    poisoning_suspects: state.mcp.poisoning_suspects,
  };
}

function actionsPart(state: State, anomalyCount: number, anchorEpochsStuck: number): CommandCenter['action_items'] {
  return actionItems({
    serversScanFailed: state.mcp.servers_scan_failed,
    scanFailed: state.scanFailed,
    poisoningSuspects: state.mcp.poisoning_suspects,
    toolsChanged: state.work.tools_changed,
    approvalsOpen: state.work.approvals_open,
    agentsPending: state.work.agents_pending,
    serversPending: state.work.servers_pending,
    anomalies: anomalyCount,
    anchorEpochsStuck,
  });
}

/** The command center of `projectId` over `range`, as seen at `now` (tests look from later to see deltas). */
export async function commandCenter(
  sql: Sql,
  projectId: string,
  range: CcRange,
  now = new Date(),
  onError: (err: unknown) => void = () => {},
): Promise<CommandCenter> {
  const w = windowOf(range, now);
  // Maintenance follows the wall clock, whatever `now` the caller views the counters at.
  const rolled = await rollUp(sql, projectId, new Date());
  const r = await readAll(sql, projectId, w, now, rolled);
  pruneSometimes(sql, projectId, rolled, onError);
  const { timeline, current, previous } = timelineOf(w, r.points);
  const agents = await agentsPart(sql, projectId, r, anomalyWindows(now).baselineHours);
  const anchorStuck = await stuckEpochsFor(sql, projectId);
  const money = costsAndContract(r.state.plan, r.monthRequests, monthOf(now).dayOfMonth, monthOf(now).start);
  return {
    range,
    generated_at: now.toISOString(),
    window: { start: w.start.toISOString(), end: w.end.toISOString(), previous_start: w.previousStart.toISOString() },
    kpis: kpisPart(current, previous, r.state),
    timeline,
    top_policies: byCount(sumByKey(r.dims, 'policy'), (n) => n)
      .slice(0, TOP_POLICIES)
      .map(([name, hits]) => ({ name, hits, color: policyColor(name, r.state.policyActions.get(name)) })),
    agents,
    mcp: mcpPart(current, r.state),
    costs: money.costs,
    contract: money.contract,
    live_feed: r.feed,
    action_items: actionsPart(r.state, agents.anomalies.length, anchorStuck),
    content_types: byCount(sumByKey(r.dims, 'content_type'), (n) => n).map(([contentType, count]) => ({
      content_type: contentType,
      count,
      color: contentTypeColor(contentType),
    })),
  };
}
