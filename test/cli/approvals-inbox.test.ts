// The live approval inbox as pure functions: the selection through redraws and keys, the comment
// prompt, and the screen, with hostile text from the daemon drawn as inert escaped text.
import t from 'tap';
import {
  COMMENT_MAX,
  initialInbox,
  moveSelection,
  onKey,
  withApprovals,
  withStatus,
  withDetail,
  type InboxState,
  type Keypress,
} from '../../cli/approvals-inbox.js';
import { fit, listWindow, renderInbox } from '../../cli/approvals-inbox-screen.js';
import type { Approval } from '../../cli/approvals.js';

const NOW = Date.parse('2026-01-01T12:00:00Z');

function approval(id: string, over: Partial<Approval> = {}): Approval {
  return {
    id,
    kind: 'mcp',
    trace_id: `trace-${id}`,
    server_id: 'srv-1',
    server_name: 'files',
    tool_name: 'delete_file',
    agent_id: null,
    agent_name: null,
    credential_id: 'key-1',
    credential_name: 'deploy bot',
    requested_by_subject: null,
    arguments: { path: `/srv/${id}` },
    arguments_hash: 'sha256:00',
    status: 'PENDING',
    created_at: '2026-01-01T11:59:00Z',
    expires_at: '2026-01-01T12:10:05Z',
    decided_at: null,
    decided_by: null,
    comment: null,
    findings: [],
    ...over,
  };
}

const screen = { width: 120, height: 30, source: 'http://127.0.0.1:8080', intervalSeconds: 2, now: NOW };
const loaded = (...ids: string[]): InboxState =>
  withApprovals(
    initialInbox(),
    ids.map((id) => approval(id)),
    '12:00:00',
  );
/** The keys as readline names them; a printable key also gives its text. */
const press = (state: InboxState, name: string, extra: Partial<Keypress> = {}) =>
  onKey(state, name.length === 1 ? name : undefined, { name, ...extra });
const typeText = (state: InboxState, text: string): InboxState =>
  [...text].reduce((s, ch) => onKey(s, ch, { name: ch === ' ' ? 'space' : ch }).state, state);
/** The screen without the inbox's own styling (bold, inverse, reset). */
const plain = (lines: string[]): string[] => lines.map((l) => l.replace(/\u001b\[[017]m/g, ''));

t.test('the first request is selected; a redraw keeps the selection on its request or moves it to the same place', async (t) => {
  let s = loaded('a', 'b', 'c');
  t.equal(s.selectedId, 'a', 'the oldest first');
  s = moveSelection(s, 1);
  t.equal(s.selectedId, 'b');
  s = withApprovals(s, [approval('new'), approval('a'), approval('b'), approval('c')], '12:00:02');
  t.equal(s.selectedId, 'b', 'still on its request when others arrive');
  s = withApprovals(s, [approval('new'), approval('a'), approval('c')], '12:00:04');
  t.equal(s.selectedId, 'c', 'decided elsewhere: the request now at its place');
  s = withApprovals(s, [approval('new')], '12:00:06');
  t.equal(s.selectedId, 'new', 'past the end: the last one');
  s = withApprovals(s, [], '12:00:08');
  t.equal(s.selectedId, null);
  t.equal(withApprovals(s, [approval('z')], '12:00:10').selectedId, 'z', 'the first to arrive in an empty inbox');
});

t.test('up/down and k/j move within the list and ask for the detail; the detail of another request is dropped', async (t) => {
  let s = loaded('a', 'b', 'c');
  const up = press(s, 'up');
  t.same(up.effect, { type: 'none' }, 'at the top already');
  let r = press(s, 'j');
  t.same(r.effect, { type: 'select', id: 'b' });
  r = press(r.state, 'down');
  t.same(r.effect, { type: 'select', id: 'c' });
  t.same(press(r.state, 'down').effect, { type: 'none' }, 'at the bottom already');
  r = press(r.state, 'k');
  t.equal(r.state.selectedId, 'b');
  t.equal(press(r.state, 'home').state.selectedId, 'a');
  t.equal(press(r.state, 'end').state.selectedId, 'c');
  s = withDetail(r.state, approval('b', { comment: 'detail' }));
  t.equal(s.detail?.comment, 'detail');
  t.equal(withDetail(s, approval('a')).detail?.id, 'b', 'a late answer for a request no longer selected is ignored');
  t.equal(press(s, 'j').state.detail, null, 'moving drops the old detail');
  t.equal(press(initialInbox(), 'down').effect.type, 'none', 'nothing to move in an empty inbox');
});

t.test('a and d open a comment prompt; Enter decides the request the key was pressed on; Esc cancels', async (t) => {
  let s = loaded('a', 'b');
  let r = press(s, 'a');
  t.match(r.state.prompt, { approved: true, id: 'a', subject: 'delete_file on files', text: '' });
  s = typeText(r.state, 'ok for the audit');
  t.equal(s.prompt?.text, 'ok for the audit');
  t.equal(press(s, 'q').effect.type, 'none', 'q is text while a comment is typed');
  s = press(press(s, 'q').state, 'backspace').state;
  s = withApprovals(s, [approval('b')], '12:00:02');
  t.equal(s.selectedId, 'b', 'the list moved under the prompt');
  r = press(s, 'return');
  t.same(
    r.effect,
    { type: 'decide', id: 'a', subject: 'delete_file on files', approved: true, comment: 'ok for the audit' },
    'to the request the prompt was opened on',
  );
  t.equal(r.state.prompt, null);
  t.ok(r.state.busy);
  t.match(r.state.status, /^Approving delete_file on files \(a\)…$/);
  t.match(press(r.state, 'd').state.status, /Wait for the decision/, 'one decision at a time');

  r = press(loaded('a'), 'd');
  t.equal(r.state.prompt?.approved, false);
  const cancelled = press(typeText(r.state, 'no'), 'escape');
  t.same(cancelled.effect, { type: 'none' });
  t.equal(cancelled.state.prompt, null);
  t.match(cancelled.state.status, /Cancelled/);
  t.same(
    press(r.state, 'enter').effect,
    { type: 'decide', id: 'a', subject: 'delete_file on files', approved: false, comment: undefined },
    'no comment: none sent',
  );
  t.same(
    press(typeText(r.state, '   '), 'return').effect,
    { type: 'decide', id: 'a', subject: 'delete_file on files', approved: false, comment: undefined },
    'blank: none',
  );

  const controls = onKey(r.state, '\u001b[31m', { name: undefined }).state;
  t.equal(controls.prompt?.text, '', 'a pasted escape sequence adds nothing');
  t.equal(onKey(r.state, '\u0015', { name: 'u', ctrl: true }).state.prompt?.text, '');
  t.equal(press(typeText(r.state, 'abc'), 'u', { ctrl: true }).state.prompt?.text, '', 'Ctrl-U clears the comment');
  const long = onKey(r.state, 'x'.repeat(COMMENT_MAX + 50), { name: undefined }).state;
  t.equal(long.prompt?.text.length, COMMENT_MAX, 'no longer than the daemon takes');

  t.match(press(initialInbox(), 'a').state.status, /Nothing to decide/);
  t.equal(press(initialInbox(), 'a').state.prompt, null);
});

t.test('q and Ctrl-C quit; Ctrl-C even while a comment is typed', async (t) => {
  t.same(press(loaded('a'), 'q').effect, { type: 'quit' });
  t.same(press(loaded('a'), 'c', { ctrl: true }).effect, { type: 'quit' });
  t.same(press(press(loaded('a'), 'a').state, 'c', { ctrl: true }).effect, { type: 'quit' });
  t.same(press(loaded('a'), 'c').effect, { type: 'none' }, 'c alone does nothing');
});

t.test('the screen: header, one row per request with the selected one marked, its detail, keys and status', async (t) => {
  let s = loaded('a', 'b');
  s = withApprovals(
    s,
    [
      approval('a', {
        agent_id: 'ag-1',
        agent_name: 'billing-bot',
        findings: [{ detector: 'pii', entity: 'EMAIL', path: '$.to', effect: 'FLAG' }],
      }),
      approval('b', { kind: 'verify', tool_name: null, server_id: null, server_name: null, arguments: null, trace_id: 'tr-9' }),
    ],
    '12:00:00',
  );
  s = withDetail(s, { ...s.approvals[0]!, arguments: { path: '/srv/a', force: true } });
  const raw = renderInbox(s, screen);
  t.equal(raw.length, screen.height, 'exactly the height');
  const lines = plain(raw);
  t.same(
    lines.map((l) => [...l].length),
    lines.map(() => screen.width),
    'every line is the width',
  );
  t.match(lines[0], /^Approval inbox · 2 open · http:\/\/127\.0\.0\.1:8080 · every 2 s · 12:00:00/);
  t.match(lines[1], /^ {2}HELD\s+AGENT\s+ARGUMENTS\s+FINDINGS\s+TIME LEFT/);
  t.match(lines[2], /^> delete_file on files\s+billing-bot \(ag-1\)\s+\{"path":"\/srv\/a"\}\s+EMAIL\s+10m 5s/);
  t.match(raw[2], /^\u001b\[7m> /, 'the selected row in inverse video');
  t.match(lines[3], /^ {2}prompt \(trace tr-9\)\s+-\s+-\s+-\s+10m 5s/);
  const text = lines.join('\n');
  t.match(text, /ID\s+a\s+status PENDING/);
  t.match(text, /Findings\s+EMAIL \(pii\) in \$\.to, FLAG/);
  t.match(text, /Arguments \(masked\)\s+\{\s+"path": "\/srv\/a",\s+"force": true\s+\}/, 'the full arguments of the detail');
  t.match(lines.at(-2), /^↑\/↓ or k\/j select · a approve · d deny .* · q quit/);

  const prompting = typeText(press(s, 'd').state, 'not today');
  const [ask, hint] = plain(renderInbox(prompting, screen)).slice(-2);
  t.match(ask, /^Deny delete_file on files \(a\)\? Comment: not today +$/);
  t.match(hint, /^Enter denies \(the comment is optional and kept with the decision\) · Esc cancels +$/, 'the keys of the prompt');
  const narrow = plain(renderInbox(typeText(prompting, 'y'.repeat(60)), { ...screen, width: 40 })).at(-2)!;
  t.match(narrow, /^Deny del…\? Comment: …y{18} $/, 'narrow: the question is cut, the end of the comment stays in view');

  const empty = plain(renderInbox(withApprovals(initialInbox(), [], '12:00:00'), screen)).join('\n');
  t.match(empty, /0 open/);
  t.match(empty, /No open approval requests; new ones appear here as they arrive\./);
  t.notMatch(plain(renderInbox(initialInbox(), screen)).join('\n'), /No open approval requests/, 'not before the first answer');
});

t.test('a long list scrolls with the selection; a short terminal cuts the detail', async (t) => {
  t.same(listWindow(3, 5, 0), { from: 0, to: 3 });
  t.same(listWindow(100, 10, 0), { from: 0, to: 10 });
  t.same(listWindow(100, 10, 50), { from: 45, to: 55 });
  t.same(listWindow(100, 10, 99), { from: 90, to: 100 });
  const ids = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(2, '0')}`);
  let s = loaded(...ids);
  s = press(s, 'end').state;
  const lines = plain(renderInbox(s, { ...screen, height: 20 }));
  t.equal(lines.length, 20);
  t.ok(
    lines.some((l) => l.startsWith('> ') && l.includes('/srv/r39')),
    'the selected last row is in view',
  );
  t.notOk(
    lines.some((l) => l.includes('/srv/r00')),
    'the first rows scrolled away',
  );
  t.ok(
    lines.some((l) => /of 40 shown/.test(l)),
    'says how many are shown',
  );
  const big = withDetail(s, approval('r39', { arguments: { list: Array.from({ length: 50 }, (_, i) => i) } }));
  const cut = plain(renderInbox(big, { ...screen, height: 20 }));
  t.equal(cut.length, 20);
  t.ok(
    cut.some((l) => l.includes('a taller terminal shows the rest')),
    'a detail taller than the room is cut and says so',
  );
  t.equal(fit('abcdef', 4), 'abc…');
  t.equal(fit('ab', 4), 'ab  ');
  t.equal(fit('ab', 0), '');
});

t.test('hostile text from the daemon is drawn escaped: no terminal control character reaches the screen', async (t) => {
  const ESC = '\u001b';
  const hostile = approval('x', {
    tool_name: `${ESC}]0;pwned${'\u0007'}rm`,
    server_name: `srv${ESC}[2J`,
    agent_id: 'ag',
    agent_name: `bot\u202eevil`,
    arguments: { note: `${ESC}[31mred ${'\u009b'}2J csi \u2066iso\r\nline`, [`key${ESC}c`]: 1 },
    findings: [{ detector: 'pii', entity: `EMAIL${ESC}[5m`, path: `$.to${'\u0085'}`, effect: 'FLAG' }],
    decided_at: '2026-01-01T12:00:00Z',
    decided_by: `mallory${ESC}[8m`,
    comment: `fine${'\u0007'}`,
  });
  let s = withApprovals(initialInbox(), [hostile], '12:00:00');
  s = withDetail(s, hostile);
  s = onKey(s, undefined, { name: 'a' }).state;
  s = { ...s, status: `Not decided: approval_not_open: ${ESC}[2J gone` };
  // with the prompt open (the question names the request), and closed (the status line)
  const lines = [...renderInbox(s, screen), ...renderInbox({ ...s, prompt: null }, screen)];
  const stripped = plain(lines);
  t.same(
    stripped.filter((line) => /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/u.test(line)),
    [],
    'no line holds a control or bidi character',
  );
  const text = stripped.join('\n');
  t.match(text, '\\u001b]0;pwned\\u0007rm on srv\\u001b[2J', 'the tool and server names as escaped text');
  t.match(text, 'bot\\u202eevil', 'bidi overrides escaped');
  t.match(text, '\\u001b[31mred \\u009b2J csi \\u2066iso\\r\\nline', 'C1 CSI and isolates in the arguments escaped');
  t.match(text, 'EMAIL\\u001b[5m');
  t.match(text, 'mallory\\u001b[8m');
  t.match(text, 'approval_not_open: \\u001b[2J gone');
  t.same(
    lines
      .join('')
      .match(/\u001b\[[0-9;?]*[A-Za-z]/g)
      ?.filter((seq) => !['\u001b[0m', '\u001b[1m', '\u001b[7m'].includes(seq)) ?? [],
    [],
    'the only escape sequences on the screen are the inbox’s own styling',
  );
});

t.test('the loading line ends with the first list, empty or not; a status set since stays', async (t) => {
  t.equal(initialInbox().status, 'Loading the open approval requests…');
  t.equal(withApprovals(initialInbox(), [], '12:00:00').status, '', 'an empty list: no longer loading');
  t.equal(withApprovals(initialInbox(), [approval('a')], '12:00:00').status, '');
  const decided = withStatus(withApprovals(initialInbox(), [approval('a')], '12:00:00'), 'Approved a.');
  t.equal(withApprovals(decided, [], '12:00:02').status, 'Approved a.', 'an outcome is not wiped by the next poll');
});
