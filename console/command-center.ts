// The command center: the figures of GET /api/v1/command-center (docs/command-center.md) for a
// chosen window, refreshed on request, and the project emergency stop (emergency-stop.ts).
import type { CommandCenter, Kpi } from '../shared/command-center-schemas.js';
import { request, type Session } from './api.js';
import { fill, h } from './dom.js';
import { stopPanel } from './emergency-stop.js';
import { oneLine, traceHash } from './traces.js';

const RANGES = ['1h', '6h', '24h', '7d', '30d'];

function kpiText(k: Kpi): string {
  const sign = k.delta > 0 ? '+' : '';
  const pct = k.delta_percent === null ? '' : `, ${sign}${k.delta_percent}%`;
  return `${k.value.toLocaleString('en')} (${sign}${k.delta.toLocaleString('en')} on the previous window${pct})`;
}

function facts(label: string, rows: [string, string | number][]): HTMLElement {
  const id = `cc-${label.toLowerCase().replace(/[^a-z]+/g, '-')}`;
  return h(
    'section',
    { class: 'card', attrs: { 'aria-labelledby': id } },
    h('h2', { attrs: { id } }, label),
    h('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { attrs: { 'data-figure': k } }, String(v))])),
  );
}

function figures(cc: CommandCenter): HTMLElement[] {
  const k = cc.kpis;
  const c = k.governance_components;
  const items = cc.action_items.map((a) =>
    h('li', { class: `severity-${a.severity}` }, `${a.severity}: ${oneLine(a.message, 200)} (${a.count})`),
  );
  const feed = cc.live_feed.map((t) =>
    h(
      'li',
      {},
      h('a', { attrs: { href: traceHash(t.id) } }, `#${t.sequence_num} ${t.decision}`),
      ` ${t.timestamp} · ${t.trace_type}${t.reason ? ` · ${oneLine(t.reason, 80)}` : ''}`,
    ),
  );
  return [
    h('p', { class: 'muted' }, `Window ${cc.window.start} to ${cc.window.end} (generated ${cc.generated_at}).`),
    facts('Key figures', [
      ['Governance score', `${k.governance_score} / 100 (traffic ${c.traffic}, agents ${c.agents}, MCP ${c.mcp})`],
      ['Traces', kpiText(k.traces)],
      ['Interceptions', kpiText(k.interceptions)],
      ['Traces with a proof', kpiText(k.proofs)],
    ]),
    facts('MCP', [
      ['Tool calls', cc.mcp.tool_calls],
      ['Blocked', cc.mcp.blocked],
      ['Servers (active / all)', `${cc.mcp.servers_active} / ${cc.mcp.servers_total}`],
      ['Last scan failed', cc.mcp.servers_scan_failed],
      ['Poisoning suspects', cc.mcp.poisoning_suspects],
      ['Open MCP approvals', cc.mcp.pending_approvals],
    ]),
    facts('Agents and plan', [
      ['Agents', cc.agents.total],
      ['Anomalies', cc.agents.anomalies.length],
      [
        'Requests this month',
        `${cc.contract.used_requests.toLocaleString('en')} of ${cc.contract.included_requests.toLocaleString('en')} (${cc.contract.utilization_percent}%)`,
      ],
      ['Estimate this month', `EUR ${cc.costs.total_estimate_eur.toFixed(2)}`],
    ]),
    h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'cc-actions' } },
      h('h2', { attrs: { id: 'cc-actions' } }, 'Action items'),
      items.length ? h('ul', {}, ...items) : h('p', {}, 'Nothing needs attention.'),
    ),
    h(
      'section',
      { class: 'card', attrs: { 'aria-labelledby': 'cc-feed' } },
      h('h2', { attrs: { id: 'cc-feed' } }, 'Newest traces'),
      feed.length ? h('ul', { class: 'traces' }, ...feed) : h('p', {}, 'No traces yet.'),
    ),
  ];
}

/** Shows the command center in `main`; nothing to stop (it loads on request). */
export function showCommandCenter(main: HTMLElement, session: Session): () => void {
  const range = h('select', { attrs: { id: 'cc-range' } }, ...RANGES.map((r) => h('option', { attrs: { value: r } }, r)));
  range.value = '24h';
  const refresh = h('button', { attrs: { type: 'button' } }, 'Refresh');
  const status = h('p', { class: 'summary', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Loading the figures…');
  const body = h('div', { class: 'figures' });
  let stopped = false;
  const load = async () => {
    status.textContent = 'Loading the figures…';
    try {
      const cc = await request<CommandCenter>('GET', `/api/v1/command-center?${new URLSearchParams({ range: range.value })}`);
      if (stopped) return;
      status.textContent = `Figures for the last ${cc.range}.`;
      fill(body, ...figures(cc));
    } catch (err) {
      if (!stopped) status.textContent = `The figures could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
    }
  };
  range.addEventListener('change', () => void load());
  refresh.addEventListener('click', () => void load());
  fill(
    main,
    h('h1', {}, 'Command center'),
    stopPanel(session),
    h('div', { class: 'field inline' }, h('label', { attrs: { for: 'cc-range' } }, 'Window'), range, refresh),
    status,
    body,
  );
  void load();
  return () => {
    stopped = true;
  };
}
