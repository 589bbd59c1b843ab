// The project emergency stop on the command center: its state (GET /api/v1/project/emergency-stop),
// and for an Admin the stop, behind a confirmation that says what it stops, and the lift (the
// routes of `gatewayctl project emergency-stop`). A Viewer sees the state only; the API refuses
// anyone else anyway.
import { request, type Session } from './api.js';
import { fill, h } from './dom.js';
import { displayText } from './show-value.js';

interface StopState {
  active: boolean;
  reason: string | null;
  activated_at: string | null;
  activated_by: string | null;
}

export const STOP_EFFECT =
  'Stopping refuses every request made with a project key or an extension key (MCP tool calls through the gateway, verify, the extension webhook) with project_emergency_stopped, and ends open approvals, until an Admin user token lifts it. Agents, servers and rules keep their status.';

export function stopPanel(session: Session): HTMLElement {
  const isAdmin = session.credential.role === 'admin';
  const state = h('p', { class: 'stop-state', attrs: { role: 'status', 'aria-live': 'polite' } }, 'Reading the stop…');
  const actions = h('div', { class: 'stop-actions' });
  const message = h('p', { class: 'outcome', attrs: { role: 'alert' } });

  const act = async (path: string, reason: string) => {
    message.textContent = '';
    try {
      await request('POST', path, reason === '' ? {} : { reason });
    } catch (err) {
      message.textContent = `Refused: ${err instanceof Error ? err.message : String(err)}`;
    }
    await load();
  };

  const confirmStop = (start: HTMLButtonElement) => {
    const reason = h('input', { attrs: { id: 'stop-reason', type: 'text', autocomplete: 'off' } });
    const yes = h('button', { class: 'deny', attrs: { type: 'button' } }, 'Stop the project');
    const no = h('button', { attrs: { type: 'button' } }, 'Cancel');
    const box = h(
      'div',
      { class: 'confirm', attrs: { role: 'group', 'aria-labelledby': 'stop-confirm-heading' } },
      h('h3', { attrs: { id: 'stop-confirm-heading' } }, 'Stop the whole project?'),
      h('p', {}, STOP_EFFECT),
      h('label', { attrs: { for: 'stop-reason' } }, 'Reason (kept in the admin log)'),
      reason,
      h('div', { class: 'buttons' }, yes, no),
    );
    yes.addEventListener('click', () => void act('/api/v1/project/emergency-stop', reason.value.trim()));
    no.addEventListener('click', () => {
      fill(actions, start);
      start.focus();
    });
    fill(actions, box);
    reason.focus();
  };

  const load = async () => {
    let s: StopState;
    try {
      s = await request<StopState>('GET', '/api/v1/project/emergency-stop');
    } catch (err) {
      state.textContent = `The stop's state could not be read: ${err instanceof Error ? err.message : String(err)}`;
      return;
    }
    state.className = `stop-state ${s.active ? 'active' : ''}`;
    state.textContent = s.active
      ? `Emergency stop ACTIVE since ${s.activated_at ?? '?'} by ${displayText(s.activated_by ?? 'unknown')}${s.reason ? ` ("${displayText(s.reason)}")` : ''}.`
      : 'No emergency stop: traffic flows.';
    if (!isAdmin) {
      fill(
        actions,
        h(
          'p',
          { class: 'help' },
          `Stopping and lifting need an Admin; this session acts as a ${session.credential.role ?? 'no-role'} key.`,
        ),
      );
      return;
    }
    if (s.active) {
      const lift = h('button', { class: 'approve', attrs: { type: 'button' } }, 'Lift the emergency stop');
      lift.addEventListener('click', () => void act('/api/v1/project/emergency-stop/lift', ''));
      fill(actions, lift);
    } else {
      const start = h('button', { class: 'deny', attrs: { type: 'button' } }, 'Emergency stop…');
      start.addEventListener('click', () => confirmStop(start));
      fill(actions, start);
    }
  };
  void load();
  return h(
    'section',
    { class: 'card stop', attrs: { 'aria-labelledby': 'stop-heading' } },
    h('h2', { attrs: { id: 'stop-heading' } }, 'Project emergency stop'),
    state,
    actions,
    message,
  );
}
