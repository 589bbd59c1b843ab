// One approval request as a card: what is held (tool on server, or a prompt), who asked (key and
// agent), the arguments as text, what the content policies found, the time left, and, for a person
// who may decide, approve and deny with a comment. Every value from the gateway goes in as text.
import type { ApprovalView } from '../shared/approval-view.js';
import type { Session } from './api.js';
import { append, fill, h } from './dom.js';
import { valueBlock } from './show-value.js';

export type Approval = ApprovalView;

export interface Card {
  readonly node: HTMLElement;
  /** Updates the time left. */
  tick(now: number): void;
  /** Shows the outcome and takes the decision controls away. */
  settle(text: string): void;
  /** Shows a message beside the controls (a refusal), keeping them. */
  say(text: string): void;
}

export type Decide = (approval: Approval, approved: boolean, comment: string) => void;

/** A person may decide: an Admin user token or person the identity provider signed in (the gateway says which: a project key is refused). */
export function mayDecide(session: Session): boolean {
  return session.may_decide;
}

export function timeLeft(expiresAt: string, now: number): string {
  const ms = Date.parse(expiresAt) - now;
  if (!(ms > 0)) return 'expired';
  const s = Math.floor(ms / 1000);
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  return hours > 0 ? `${hours}h ${minutes}m` : minutes > 0 ? `${minutes}m ${s % 60}s` : `${s}s`;
}

function heldTitle(a: Approval): string {
  return a.kind === 'mcp'
    ? `${a.tool_name ?? 'a tool'} on ${a.server_name ?? a.server_id ?? 'an unknown server'}`
    : 'A prompt held by verify';
}

const named = (name: string | null, id: string | null): string => (id === null ? 'none' : name ? `${name} (${id})` : id);

/** The person (an access token's subject: name, then sub at issuer) or the key that made the call. */
function requester(a: Approval): string {
  const s = a.requested_by_subject;
  return s ? `${s.name} (${s.sub} at ${s.issuer})` : `key ${named(a.credential_name, a.credential_id)}`;
}

function argumentList(a: Approval): HTMLElement {
  const args = a.arguments;
  if (args === null || args === undefined) return h('p', {}, 'No arguments recorded.');
  const entries = typeof args === 'object' && !Array.isArray(args) ? Object.entries(args as Record<string, unknown>) : [['(value)', args]];
  if (entries.length === 0) return h('p', {}, 'No arguments.');
  const list = h('dl', { class: 'args' });
  entries.forEach(([name, value], i) => append(list, h('dt', {}, String(name)), h('dd', {}, valueBlock(value, `arg-${a.id}-${i}`))));
  return list;
}

function findingList(a: Approval): HTMLElement {
  if (a.findings.length === 0) return h('p', {}, 'None.');
  const items = a.findings.map((f) => h('li', {}, `${f.entity ?? '?'} (${f.detector ?? '?'}) at ${f.path ?? '?'}: ${f.effect ?? '?'}`));
  return h('ul', { class: 'findings' }, ...items);
}

export function approvalCard(a: Approval, session: Session, decide: Decide): Card {
  const titleId = `title-${a.id}`;
  const left = h('time', { attrs: { datetime: a.expires_at } });
  const outcome = h('p', { class: 'outcome', attrs: { role: 'status' } });
  const controls = mayDecide(session) ? decisionForm(a, decide) : viewerNote(session);
  const node = h(
    'article',
    { class: 'card approval', attrs: { 'aria-labelledby': titleId, 'data-approval-id': a.id } },
    h('h2', { attrs: { id: titleId } }, heldTitle(a)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Requested by'),
      h('dd', {}, requester(a)),
      h('dt', {}, 'Agent'),
      h('dd', {}, named(a.agent_name, a.agent_id)),
      a.kind === 'mcp' && h('dt', {}, 'Server'),
      a.kind === 'mcp' && h('dd', {}, named(a.server_name, a.server_id)),
      a.kind === 'mcp' && h('dt', {}, 'Tool'),
      a.kind === 'mcp' && h('dd', {}, a.tool_name ?? '?'),
      h('dt', {}, 'Expires in'),
      h('dd', {}, left),
      h('dt', {}, 'Request'),
      h('dd', { class: 'id' }, a.id),
    ),
    h('h3', {}, 'Arguments'),
    argumentList(a),
    h('h3', {}, 'Content findings'),
    findingList(a),
    controls,
    outcome,
  );
  return {
    node,
    tick(now) {
      left.textContent = timeLeft(a.expires_at, now);
    },
    settle(text) {
      node.classList.add('settled');
      controls.remove();
      outcome.textContent = text;
    },
    say(text) {
      outcome.textContent = text;
    },
  };
}

function decisionForm(a: Approval, decide: Decide): HTMLElement {
  const commentId = `comment-${a.id}`;
  const comment = h('textarea', { attrs: { id: commentId, rows: '2', maxlength: '500' } });
  const button = (label: string, approved: boolean, cls: string) =>
    h('button', { class: cls, attrs: { type: 'button' }, on: { click: () => decide(a, approved, comment.value.trim()) } }, label);
  return h(
    'div',
    { class: 'decide' },
    h('label', { attrs: { for: commentId } }, 'Comment (kept with the decision)'),
    comment,
    h('div', { class: 'buttons' }, button('Approve', true, 'approve'), button('Deny', false, 'deny')),
  );
}

function viewerNote(session: Session): HTMLElement {
  const c = session.credential;
  const note = h('p', { class: 'note' });
  const as = session.subject
    ? `${c.role ?? 'no-role'} person signed in by the identity provider`
    : `${c.role ?? 'no-role'} ${c.kind.replace('_', ' ')}`;
  fill(note, `Deciding needs an Admin person (a user token, or a sign-in by the identity provider); this session acts as a ${as}.`);
  return note;
}
