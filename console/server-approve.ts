// "Approve server…" for a server awaiting approval (an Admin's control, as `gatewayctl servers
// approve`): every tool of the last scan with its proposal, risk and findings and a rule to choose
// (the proposal preselected, REQUIRE_APPROVAL where there is none), then a confirmation naming what
// will be approved. Confirming POSTs .../activate with the fingerprints this page read, so a tool
// changed since is refused by the gateway (mcp_release_surface_changed) and nothing is approved.
import { ApiError, request } from './api.js';
import { fill, h } from './dom.js';
import { RULES, type Tool } from './server-tools.js';
import { messageOf } from './sign-in.js';

/** The rule a tool without a proposal gets: its calls are held for a person (as the CLI's --accept-proposals). */
const NO_PROPOSAL_RULE = 'REQUIRE_APPROVAL';

interface Choice {
  tool: Tool;
  select: HTMLSelectElement;
}

/** What the panel needs of the page: where to say things, and how to run an action then read the server again. */
export interface ApproveContext {
  say(text: string): void;
  act(pending: string, work: () => Promise<string>): void;
}

/** The button, the rule per tool, the confirmation; `tools` as this page read them. */
export function approveServer(server: { id: string; name: string }, tools: readonly Tool[], page: ApproveContext): HTMLElement {
  const box = h('div', { class: 'decide' });
  const decidable = tools.filter((t) => t.present);
  const start = () => {
    const button = h('button', { class: 'approve', attrs: { type: 'button' }, on: { click: () => choose() } }, 'Approve server…');
    fill(box, button);
    return button;
  };
  const choose = (kept?: readonly Choice[]) => {
    const choices = decidable.map((tool, i) => ({ tool, select: ruleSelect(tool, kept?.[i]?.select.value) }));
    const review = h('button', { class: 'approve', attrs: { type: 'button' }, on: { click: () => confirm(choices) } }, 'Review…');
    fill(
      box,
      h(
        'section',
        { class: 'card approve-server', attrs: { 'aria-labelledby': 'approve-heading' } },
        h('h2', { attrs: { id: 'approve-heading' } }, `Approve ${server.name}: a rule for each tool`),
        h('p', {}, `The last scan lists ${count(decidable.length)}; each starts with its proposed rule.`),
        ...choices.map(choiceRow),
        h('div', { class: 'buttons' }, review, h('button', { attrs: { type: 'button' }, on: { click: () => start().focus() } }, 'Cancel')),
      ),
    );
    (choices[0]?.select ?? review).focus();
  };
  const confirm = (choices: readonly Choice[]) => {
    const yes = h('button', { class: 'approve', attrs: { type: 'button' }, on: { click: () => send(choices) } }, 'Yes, approve the server');
    fill(
      box,
      h(
        'section',
        { class: 'card approve-server', attrs: { 'aria-labelledby': 'approve-confirm-heading' } },
        h('h2', { attrs: { id: 'approve-confirm-heading' } }, `Approve ${server.name}?`),
        h('p', { attrs: { role: 'alert' } }, `${server.name} becomes ACTIVE and its ${count(choices.length)} admitted with these rules:`),
        h(
          'ul',
          { class: 'rules-chosen' },
          ...choices.map(({ tool, select }) => h('li', {}, `${tool.name}: ${select.value}${note(tool, select.value)}`)),
        ),
        h(
          'div',
          { class: 'buttons' },
          yes,
          h('button', { attrs: { type: 'button' }, on: { click: () => choose(choices) } }, 'Back'),
          h('button', { attrs: { type: 'button' }, on: { click: () => start().focus() } }, 'Cancel'),
        ),
      ),
    );
    yes.focus();
  };
  const send = (choices: readonly Choice[]) => {
    const body = {
      tools: choices.map(({ tool, select }) => ({ tool_id: tool.id, rule: select.value, fingerprint: tool.current_fingerprint })),
    };
    page.act(`Approving ${server.name}…`, async () => {
      try {
        await request('POST', `/api/v1/mcp/servers/${encodeURIComponent(server.id)}/activate`, body);
        return `Approved ${server.name}: it is ACTIVE, its ${count(choices.length)} admitted with the rules chosen.`;
      } catch (err) {
        return refusal(err);
      }
    });
  };
  if (decidable.length === 0) fill(box, h('p', { class: 'note' }, 'The last scan lists no tool; scan the server before approving it.'));
  else start();
  return box;
}

const count = (n: number) => `${n} tool${n === 1 ? '' : 's'}`;
const proposalOf = (t: Tool) => t.proposed_rule ?? NO_PROPOSAL_RULE;
const note = (t: Tool, rule: string) =>
  rule !== proposalOf(t) ? ` (proposed ${t.proposed_rule ?? 'none'})` : t.proposed_rule === null ? ' (no proposal)' : '';

function ruleSelect(t: Tool, value?: string): HTMLSelectElement {
  const select = h('select', { attrs: { id: `approve-rule-${t.id}` } }, ...RULES.map((r) => h('option', { attrs: { value: r } }, r)));
  select.value = value ?? proposalOf(t);
  return select;
}

/** One tool: its proposal, risk and findings as the tool cards below show them, and the rule select. */
function choiceRow({ tool: t, select }: Choice): HTMLElement {
  const findings = t.poisoning_findings.map((f) => f.code);
  return h(
    'div',
    { class: 'choice', attrs: { 'data-tool-id': t.id } },
    h('label', { attrs: { for: select.id } }, `Rule for ${t.name}`),
    select,
    h(
      'p',
      { class: 'note' },
      `Proposed: ${t.proposed_rule ? `${t.proposed_rule} (from its ${t.proposed_rule_source ?? '?'})` : `none (${NO_PROPOSAL_RULE} preselected)`}`
        + ` · risk ${t.risk_level} (${t.action}, ${t.category})`
        + ` · ${findings.length === 0 ? 'no poisoning findings' : `poisoning findings: ${[...new Set(findings)].join(', ')}`}`,
    ),
  );
}

/** The gateway's refusal in plain words; nothing was approved. */
function refusal(err: unknown): string {
  const code = err instanceof ApiError ? err.code : '';
  if (code === 'mcp_release_surface_changed')
    return `Not approved: a tool's definition changed since this page read it (${messageOf(err)}) Nothing was approved; the page now shows the new definitions.`;
  if (code === 'mcp_release_author_unresolved')
    return `Not approved: approving takes a person (an Admin user token, or someone the identity provider signed in), and this session's key names none. Nothing was approved.`;
  if (code === 'mcp_release_tool_missing' || code === 'mcp_release_tool_unknown')
    return `Not approved: the server's tools changed since this page read them (${messageOf(err)}) Nothing was approved; the page now shows the last scan.`;
  return `Not approved: ${messageOf(err)} Nothing was approved.`;
}
