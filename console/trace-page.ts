// One trace's page (`#/traces/<id>`): its decision, reasons and content (as text only, as the list
// route shows it: masked or forwarded text, never a raw original), and its proof checked in the
// browser (proof-panel.ts).
import { request } from './api.js';
import { fill, h } from './dom.js';
import { proofPanel } from './proof-panel.js';
import { displayText, valueBlock } from './show-value.js';
import { type Trace, traceHash } from './traces.js';

const CONTENT: Record<string, string> = {
  transmitted_plain: 'as forwarded',
  transmitted_masked: 'as forwarded, masked',
  not_transmitted: 'not forwarded: not shown',
  unavailable: 'no longer kept (retention)',
};

function facts(t: Trace): HTMLElement {
  const rows: [string, string | null][] = [
    ['Decision', t.decision],
    ['Reason', t.reason],
    ['Time', t.timestamp],
    ['Type', t.trace_type],
    ['Action', t.action_name],
    ['Environment', t.environment],
    ['Agent', t.agent_id],
    ['Sequence', String(t.sequence_num)],
    ['Integrity hash', t.integrity_hash],
    ['Anchoring', t.flare_status ?? 'off'],
  ];
  return h('dl', { class: 'facts' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v === null ? '—' : displayText(v))]));
}

/** Shows trace `id` in `main`; nothing to stop. */
export function showTrace(main: HTMLElement, id: string): () => void {
  const back = h('p', {}, h('a', { attrs: { href: traceHash() } }, 'All traces'));
  const status = h('p', { class: 'summary', attrs: { role: 'status' } }, 'Loading the trace…');
  fill(main, back, h('h1', {}, 'Trace'), status);
  let stopped = false;
  request<{ traces: Trace[] }>('GET', `/api/v1/traces?${new URLSearchParams({ id })}`).then(
    (page) => {
      if (stopped) return;
      const t = page.traces[0];
      if (!t) {
        status.textContent = 'No trace of this project has that ID.';
        return;
      }
      status.textContent = '';
      const content = h(
        'section',
        { class: 'card', attrs: { 'aria-labelledby': 'content-heading' } },
        h('h2', { attrs: { id: 'content-heading' } }, `Content (${CONTENT[t.content_state] ?? t.content_state})`),
        t.display_content === '' ? h('p', { class: 'muted' }, 'Nothing to show.') : valueBlock(t.display_content, 'trace-content'),
      );
      fill(
        main,
        back,
        h('h1', {}, `Trace #${t.sequence_num}: ${t.decision}`),
        h('p', { class: 'id' }, t.id),
        facts(t),
        content,
        proofPanel(t.id),
      );
    },
    (err: unknown) => {
      if (!stopped) status.textContent = `The trace could not be loaded: ${err instanceof Error ? err.message : String(err)}`;
    },
  );
  return () => {
    stopped = true;
  };
}
