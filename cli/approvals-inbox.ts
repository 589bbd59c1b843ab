// The live approval inbox of `gatewayctl approvals watch`, as pure functions: the state (the open
// requests, the selection, the comment being typed) and what a key does to it. The screen drawn
// from it is approvals-inbox-screen.ts.
import { heldSubject, type Approval } from './approvals.js';

/** The longest comment the daemon takes (approvalDecideBody). */
export const COMMENT_MAX = 2000;

export interface CommentPrompt {
  readonly approved: boolean;
  /** The request the key was pressed on: the decision goes to it even if a redraw moves the list. */
  readonly id: string;
  readonly subject: string;
  readonly text: string;
}

export interface InboxState {
  readonly approvals: readonly Approval[];
  readonly selectedId: string | null;
  /** GET /approvals/{id} of the selected request, once fetched. */
  readonly detail: Approval | null;
  readonly prompt: CommentPrompt | null;
  /** A decision is on its way: a and d wait for its answer. */
  readonly busy: boolean;
  readonly status: string;
  readonly refreshedAt: string | null;
}

/** What readline's keypress event gives: the text typed, and the key by name. */
export interface Keypress {
  readonly name?: string;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
}

export type InboxEffect =
  | { readonly type: 'none' }
  | { readonly type: 'quit' }
  /** The selection changed: fetch its detail. */
  | { readonly type: 'select'; readonly id: string }
  | {
      readonly type: 'decide';
      readonly id: string;
      /** What is held, by name, as the prompt showed it (the decide answer names no server). */
      readonly subject: string;
      readonly approved: boolean;
      readonly comment: string | undefined;
    };

export interface KeyResult {
  readonly state: InboxState;
  readonly effect: InboxEffect;
}

/** What the status line says until the first list arrives. */
export const LOADING = 'Loading the open approval requests…';

export function initialInbox(status = LOADING): InboxState {
  return { approvals: [], selectedId: null, detail: null, prompt: null, busy: false, status, refreshedAt: null };
}

/**
 * A fresh list from the daemon: the selection stays on its request while it is open; when it is
 * gone (decided, expired) it moves to the request now at the same place.
 */
export function withApprovals(state: InboxState, approvals: readonly Approval[], at: string): InboxState {
  let selectedId = state.selectedId;
  if (!approvals.some((a) => a.id === selectedId)) {
    const was = Math.max(
      0,
      state.approvals.findIndex((a) => a.id === state.selectedId),
    );
    selectedId = approvals[Math.min(was, approvals.length - 1)]?.id ?? null;
  }
  const detail = state.detail?.id === selectedId ? state.detail : null;
  // The first list ends the loading; any other status (an outcome, a refusal) stays until replaced.
  const status = state.status === LOADING ? '' : state.status;
  return { ...state, approvals, selectedId, detail, status, refreshedAt: at };
}

/** The detail of `detail.id`, kept only while that request is still the selected one. */
export function withDetail(state: InboxState, detail: Approval): InboxState {
  return detail.id === state.selectedId ? { ...state, detail } : state;
}

export function withStatus(state: InboxState, status: string, busy = state.busy): InboxState {
  return { ...state, status, busy };
}

export function selectedIndex(state: InboxState): number {
  return state.approvals.findIndex((a) => a.id === state.selectedId);
}

export function moveSelection(state: InboxState, delta: number): InboxState {
  if (state.approvals.length === 0) return state;
  const from = Math.max(0, selectedIndex(state));
  const to = Math.min(state.approvals.length - 1, Math.max(0, from + delta));
  const selectedId = state.approvals[to]!.id;
  return selectedId === state.selectedId ? state : { ...state, selectedId, detail: null };
}

const none: InboxEffect = { type: 'none' };
const MOVES = new Map<string, number>([
  ['up', -1],
  ['k', -1],
  ['down', 1],
  ['j', 1],
  ['pageup', -10],
  ['pagedown', 10],
  ['home', -Infinity],
  ['end', Infinity],
]);

/** What one key does: Ctrl-C always quits; while a comment is typed, keys edit it. */
export function onKey(state: InboxState, text: string | undefined, key: Keypress | undefined): KeyResult {
  const name = key?.name ?? text;
  if (key?.ctrl && name === 'c') return { state, effect: { type: 'quit' } };
  if (state.prompt) return onPromptKey(state, state.prompt, text, key);
  if (name === 'q') return { state, effect: { type: 'quit' } };
  const delta = name === undefined || key?.ctrl || key?.meta ? undefined : MOVES.get(name);
  if (delta !== undefined) {
    const next = moveSelection(state, delta);
    return { state: next, effect: next.selectedId && next !== state ? { type: 'select', id: next.selectedId } : none };
  }
  if ((name === 'a' || name === 'd') && !key?.ctrl && !key?.meta) {
    const selected = state.approvals.find((a) => a.id === state.selectedId);
    if (!selected) return { state: withStatus(state, 'Nothing to decide: no open request is selected.'), effect: none };
    if (state.busy) return { state: withStatus(state, 'Wait for the decision on its way to be answered.'), effect: none };
    const prompt = { approved: name === 'a', id: selected.id, subject: heldSubject(selected) ?? selected.id, text: '' };
    return { state: { ...state, prompt }, effect: none };
  }
  return { state, effect: none };
}

function onPromptKey(state: InboxState, prompt: CommentPrompt, text: string | undefined, key: Keypress | undefined): KeyResult {
  const name = key?.name;
  if (name === 'escape') return { state: { ...state, prompt: null, status: 'Cancelled: nothing was decided.' }, effect: none };
  if (name === 'return' || name === 'enter') {
    const comment = prompt.text.trim();
    const verb = prompt.approved ? 'Approving' : 'Denying';
    return {
      state: { ...state, prompt: null, busy: true, status: `${verb} ${prompt.subject} (${prompt.id})…` },
      effect: {
        type: 'decide',
        id: prompt.id,
        subject: prompt.subject,
        approved: prompt.approved,
        comment: comment === '' ? undefined : comment,
      },
    };
  }
  if (name === 'backspace')
    return { state: { ...state, prompt: { ...prompt, text: [...prompt.text].slice(0, -1).join('') } }, effect: none };
  if (key?.ctrl && name === 'u') return { state: { ...state, prompt: { ...prompt, text: '' } }, effect: none };
  // Printable text only: a pasted escape sequence or a control key adds nothing to the comment.
  if (text === undefined || key?.ctrl || key?.meta || /[\p{Cc}]/u.test(text)) return { state, effect: none };
  const typed = [...prompt.text, ...text].slice(0, COMMENT_MAX).join('');
  return { state: { ...state, prompt: { ...prompt, text: typed } }, effect: none };
}
