// The command center as a compact terminal view: KPIs, the timeline as sparklines, top policies,
// agents, MCP and contract in a line each, and the action items. Plain text (no colours), every
// string from the daemon escaped, so it reads the same in a terminal, a pipe and a log.
import type { CommandCenter, Kpi, TimelinePoint } from '../shared/command-center-schemas.js';
import { safeText } from './trace-output.js';

const BARS = '▁▂▃▄▅▆▇█';
const POINT_WORD: Record<string, string> = { '1h': 'minute', '6h': '5 minutes', '24h': 'hour', '7d': '6 hours', '30d': 'day' };

const num = (n: number): string => n.toLocaleString('en-US');
const eur = (n: number): string => `EUR ${n.toFixed(2)}`;

/** One character per point, scaled to the largest value of `scale`; a point with nothing is `·`. */
export function sparkline(values: readonly number[], scale = Math.max(0, ...values)): string {
  return values
    .map((v) => (v <= 0 || scale <= 0 ? '·' : BARS[Math.min(BARS.length - 1, Math.floor((v / scale) * (BARS.length - 1)))]!))
    .join('');
}

function kpiLine(label: string, k: Kpi): string {
  const sign = k.delta > 0 ? '+' : '';
  const pct = k.delta_percent === null ? '' : `, ${k.delta_percent > 0 ? '+' : ''}${k.delta_percent}%`;
  return `${label.padEnd(15)}${num(k.value).padStart(12)}  (${sign}${num(k.delta)}${pct} vs previous)`;
}

function timelineLines(points: readonly TimelinePoint[], range: string): string[] {
  const max = Math.max(0, ...points.map((p) => p.total));
  return [
    `${'Timeline'.padEnd(15)}${sparkline(points.map((p) => p.total))}  max ${num(max)} per ${POINT_WORD[range] ?? 'point'}`,
    `${'  blocked'.padEnd(15)}${sparkline(
      points.map((p) => p.block),
      max,
    )}  ${num(points.reduce((a, p) => a + p.block, 0))}`,
    `${'  flagged'.padEnd(15)}${sparkline(
      points.map((p) => p.flag),
      max,
    )}  ${num(points.reduce((a, p) => a + p.flag, 0))}`,
    `${''.padEnd(15)}${safeText(points[0]?.label ?? '')} … ${safeText(points.at(-1)?.label ?? '')} (UTC)`,
  ];
}

export function renderDashboard(cc: CommandCenter): string {
  const k = cc.kpis;
  const g = k.governance_components;
  const top = cc.agents.top_agents
    .slice(0, 3)
    .map((a) => `${safeText(a.name ?? a.id, 30)} ${num(a.requests)}`)
    .join(', ');
  const policies = cc.top_policies
    .slice(0, 5)
    .map((p) => `${safeText(p.name, 40)} ${num(p.hits)}`)
    .join(' · ');
  const m = cc.mcp;
  const c = cc.contract;
  const lines = [
    `Command center · range ${cc.range} · ${cc.generated_at}`,
    `${'Governance'.padEnd(15)}${String(k.governance_score).padStart(12)}/100  (traffic ${g.traffic}, agents ${g.agents}, mcp ${g.mcp})`,
    kpiLine('Traces', k.traces),
    kpiLine('Interceptions', k.interceptions),
    kpiLine('Proofs', k.proofs),
    ...timelineLines(cc.timeline, cc.range),
    `${'Top policies'.padEnd(15)}${policies || 'none fired'}`,
    `${'Agents'.padEnd(15)}${num(cc.agents.total)} registered${top ? `; top: ${top}` : ''}; ${cc.agents.anomalies.length} anomalies`,
    `${'MCP'.padEnd(15)}${m.servers_total} servers, ${m.servers_active} active, ${m.servers_scan_failed} scan failed; ${num(m.tool_calls)} tool calls, ${num(m.blocked)} blocked; ${m.pending_approvals} pending approvals; ${m.poisoning_suspects} poisoning suspects`,
    `${'Contract'.padEnd(15)}${num(c.used_requests)} of ${num(c.included_requests)} requests this month (${c.utilization_percent}%), overage ${num(c.overage)}; estimate ${eur(cc.costs.total_estimate_eur)} (${eur(cc.costs.daily_estimate_eur)}/day)`,
    'Action items',
    ...(cc.action_items.length === 0
      ? ['  none']
      : cc.action_items.map((i) => `  ${i.severity.padEnd(9)}${i.type.padEnd(30)}${String(i.count).padStart(5)}  ${safeText(i.message)}`)),
  ];
  return lines.join('\n');
}
