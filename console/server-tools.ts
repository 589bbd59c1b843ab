// One tool of a server as a card: its rule in force, risk, whether it matches what was admitted,
// its poisoning findings, and, while it waits for admission, the proposed rule and its definition
// (a changed one old against new). For an Admin: admit with a rule (POST .../tools/release with the
// fingerprint this page read, so a tool that changed again is refused: mcp_release_surface_changed)
// or reject (the verdict route sets DENY; the tool stays unadmitted).
import type { ToolView } from '../shared/tool-view.js';
import type { Definition } from './definition-diff.js';
import { currentDefinitionView, definitionView } from './definition-view.js';
import { h } from './dom.js';

/** A tool as the API lists it (shared/tool-view.ts: the CLI reads the same shape). */
export type Tool = ToolView;

export const RULES = ['ALLOW', 'LOG_ONLY', 'REQUIRE_APPROVAL', 'DENY'] as const;

/** What the page asks of the gateway for one tool. */
export interface ToolActions {
  admit(tool: Tool, rule: string): void;
  reject(tool: Tool): void;
}

export const waiting = (t: Tool): boolean => t.present && t.matches_approved !== true;

export function admissionText(t: Tool): string {
  if (!t.present) return 'No longer listed by the server';
  if (t.matches_approved === null) return 'Never admitted';
  return t.matches_approved ? 'Admitted, unchanged' : 'Changed since admission: blocked until admitted again';
}

const currentOf = (t: Tool): Definition => ({
  title: t.title,
  description: t.description,
  input_schema: t.input_schema,
  output_schema: t.output_schema,
  annotations: t.annotations,
});

function findingList(t: Tool): HTMLElement {
  if (t.poisoning_findings.length === 0) return h('p', {}, 'None.');
  return h('ul', { class: 'findings' }, ...t.poisoning_findings.map((f) => h('li', {}, `${f.code} at ${f.where}: ${f.detail}`)));
}

/** The tool's card; `actions` null shows no controls (a Viewer, or a server that cannot admit). */
export function toolCard(t: Tool, actions: ToolActions | null, note: string | null): HTMLElement {
  const titleId = `tool-${t.id}`;
  const isWaiting = waiting(t);
  return h(
    'article',
    { class: `card tool${isWaiting ? ' waiting' : ''}`, attrs: { 'aria-labelledby': titleId, 'data-tool-id': t.id } },
    h('h3', { attrs: { id: titleId } }, t.title ? `${t.name} (${t.title})` : t.name),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Admission'),
      h('dd', {}, admissionText(t)),
      h('dt', {}, 'Rule in force'),
      h('dd', {}, t.policy_action ?? 'none (calls are held for approval)'),
      isWaiting && h('dt', {}, 'Proposed rule'),
      isWaiting && h('dd', {}, t.proposed_rule ? `${t.proposed_rule} (from its ${t.proposed_rule_source ?? '?'})` : 'none'),
      h('dt', {}, 'Risk'),
      h('dd', {}, `${t.risk_level} (${t.action}, ${t.category})`),
    ),
    h('h4', {}, 'Poisoning findings'),
    findingList(t),
    isWaiting && h('h4', {}, t.matches_approved === false ? 'Definition: admitted and current' : 'Definition'),
    isWaiting
      && (t.matches_approved === false
        ? definitionView(t.name, t.admitted_definition, currentOf(t))
        : currentDefinitionView(t.name, currentOf(t))),
    isWaiting && actions && admitForm(t, actions),
    isWaiting && note && h('p', { class: 'note' }, note),
  );
}

function admitForm(t: Tool, actions: ToolActions): HTMLElement {
  const selectId = `rule-${t.id}`;
  const proposed = t.proposed_rule ?? 'REQUIRE_APPROVAL';
  const select = h('select', { attrs: { id: selectId } }, ...RULES.map((r) => h('option', { attrs: { value: r } }, r)));
  select.value = proposed;
  return h(
    'div',
    { class: 'decide' },
    h('label', { attrs: { for: selectId } }, `Rule for ${t.name}`),
    select,
    h(
      'div',
      { class: 'buttons' },
      h('button', { class: 'approve', attrs: { type: 'button' }, on: { click: () => actions.admit(t, select.value) } }, 'Admit'),
      h('button', { class: 'deny', attrs: { type: 'button' }, on: { click: () => actions.reject(t) } }, 'Reject'),
    ),
  );
}
