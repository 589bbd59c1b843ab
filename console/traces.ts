// The traces list: GET /api/v1/traces (the route `gatewayctl traces list` reads) with its filters
// as a form, newest first, a page at a time. Each trace links to its own page (`#/traces/<id>`).
// Values from the traffic are shown as text only.
import { ApiError, request } from './api.js';
import { fill, h } from './dom.js';
import { displayText } from './show-value.js';

export interface Trace {
  id: string;
  sequence_num: number;
  timestamp: string;
  decision: string;
  reason: string | null;
  action_name: string | null;
  environment: string;
  trace_type: string;
  agent_id: string | null;
  integrity_hash: string;
  display_content: string;
  content_state: string;
  flare_status: string | null;
  [field: string]: unknown;
}

const PAGE_SIZE = 50;
const DECISIONS = ['PASSED', 'FLAGGED', 'BLOCKED', 'MODIFIED', 'PENDING_APPROVAL', 'POLICY_CHANGE', 'ALLOWED', 'ERROR'];
const RANGES = ['24h', '7d', '30d', 'all'];
const REASON_CHARS = 120;

/** A trace's page address (pages.ts routes `#/traces/<id>` to trace-page.ts). */
export function traceHash(id = ''): string {
  return id === '' ? '#/traces' : `#/traces/${encodeURIComponent(id)}`;
}

/** One line of a value from the traffic: escaped like the inbox's values, cut to `max`. */
export function oneLine(value: string | null, max: number): string {
  const text = displayText(value ?? '').replace(/\n/g, ' ');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function field(label: string, input: HTMLElement, hint?: string): HTMLElement {
  const id = input.id;
  return h('div', { class: 'field' }, h('label', { attrs: { for: id } }, label), input, hint ? h('span', { class: 'help' }, hint) : null);
}

function select(id: string, options: string[], blank: string): HTMLSelectElement {
  return h(
    'select',
    { attrs: { id, name: id } },
    h('option', { attrs: { value: '' } }, blank),
    ...options.map((o) => h('option', { attrs: { value: o } }, o)),
  );
}

function filterForm(onSubmit: (query: URLSearchParams) => void): HTMLFormElement {
  const text = (id: string, placeholder = '') => h('input', { attrs: { id, name: id, type: 'text', autocomplete: 'off', placeholder } });
  const form = h(
    'form',
    { class: 'filters', attrs: { 'aria-label': 'Filter traces' } },
    field('Time range', select('time_range', RANGES, 'Any time')),
    field('Decision', select('decision', DECISIONS, 'Any decision')),
    field('Since', text('since', '2026-06-01T00:00:00Z'), 'ISO 8601 with offset'),
    field('Until', text('until')),
    field('Agent ID', text('agent_id')),
    field('Environment', text('environment', 'prod')),
    h('div', { class: 'buttons' }, h('button', { attrs: { type: 'submit' } }, 'Apply filters')),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const query = new URLSearchParams();
    for (const [name, value] of new FormData(form)) if (typeof value === 'string' && value.trim() !== '') query.set(name, value.trim());
    onSubmit(query);
  });
  return form;
}

function traceItem(t: Trace): HTMLElement {
  return h(
    'li',
    { class: 'trace', attrs: { 'data-trace-id': t.id } },
    h('a', { attrs: { href: traceHash(t.id) } }, `#${t.sequence_num} ${t.decision}`),
    h('span', { class: 'muted' }, ` ${t.timestamp} · ${t.trace_type}${t.action_name ? ` · ${oneLine(t.action_name, 80)}` : ''}`),
    t.reason ? h('span', { class: 'reason' }, oneLine(t.reason, REASON_CHARS)) : null,
  );
}

/** Shows the list in `main`; nothing to stop (it loads on request, not on a timer). */
export function showTraces(main: HTMLElement): () => void {
  const status = h('p', { class: 'summary', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Loading traces…');
  const list = h('ul', { class: 'traces', attrs: { 'aria-label': 'Traces' } });
  const pager = h('div', { class: 'buttons pager' });
  let query = new URLSearchParams();
  let offset = 0;
  let stopped = false;

  const load = async () => {
    const q = new URLSearchParams(query);
    q.set('limit', String(PAGE_SIZE));
    q.set('offset', String(offset));
    status.textContent = 'Loading traces…';
    try {
      const page = await request<{ traces: Trace[]; total: number }>('GET', `/api/v1/traces?${q}`);
      if (stopped) return;
      fill(list, ...page.traces.map(traceItem));
      const shown = page.traces.length;
      status.textContent =
        shown === 0
          ? page.total === 0
            ? 'No traces match.'
            : `No traces at this offset; ${page.total} match.`
          : `Traces ${offset + 1}–${offset + shown} of ${page.total}.`;
      const prev = h('button', { attrs: { type: 'button' } }, 'Previous page');
      const next = h('button', { attrs: { type: 'button' } }, 'Next page');
      prev.disabled = offset === 0;
      next.disabled = offset + shown >= page.total;
      prev.addEventListener('click', () => turn(Math.max(0, offset - PAGE_SIZE)));
      next.addEventListener('click', () => turn(offset + PAGE_SIZE));
      fill(pager, prev, next);
    } catch (err) {
      if (stopped) return;
      fill(list);
      fill(pager);
      status.textContent = err instanceof ApiError ? `The filters were refused: ${err.message}` : 'The traces could not be loaded.';
    }
  };
  const turn = (to: number) => {
    offset = to;
    void load();
  };
  const form = filterForm((q) => {
    query = q;
    turn(0);
  });
  fill(main, h('h1', {}, 'Traces'), form, status, list, pager);
  void load();
  return () => {
    stopped = true;
  };
}
