// The screen of the approval inbox (approvals-inbox.ts), drawn from its state as pure functions.
// Every line passes through safeText before the inbox adds its own styling, so no text from the
// daemon (tool names, arguments, comments, errors) can carry a terminal escape.
import { selectedIndex, type InboxState } from './approvals-inbox.js';
import { agentLabel, argumentSummary, heldSubject, timeLeft, type Approval } from './approvals.js';
import { safeJson, safeText } from './trace-output.js';

const INVERSE = '\u001b[7m';
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

export interface Screen {
  readonly width: number;
  readonly height: number;
  /** Shown in the header: where the requests come from, and how often. */
  readonly source: string;
  readonly intervalSeconds: number;
  readonly now?: number;
}

/** Text cut or padded to exactly `width` characters (code points), escaped first. */
export function fit(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...safeText(text)];
  if (chars.length > width) return `${chars.slice(0, width - 1).join('')}…`;
  return chars.join('') + ' '.repeat(width - chars.length);
}

interface Columns {
  held: number;
  agent: number;
  args: number;
  findings: number;
  time: number;
}

function columns(width: number): Columns {
  const held = Math.min(32, Math.max(12, Math.floor(width * 0.22)));
  const agent = Math.min(26, Math.max(8, Math.floor(width * 0.16)));
  const findings = Math.min(14, Math.max(8, Math.floor(width * 0.1)));
  const time = 9;
  const args = Math.max(10, width - 2 - held - agent - findings - time - 8);
  return { held, agent, args, findings, time };
}

function findingsLabel(a: Approval): string {
  return a.findings.length === 0 ? '-' : [...new Set(a.findings.map((f) => f.entity))].join(',');
}

function row(c: Columns, marker: string, cells: readonly [string, string, string, string, string]): string {
  const [held, agent, args, findings, time] = cells;
  return `${marker} ${fit(held, c.held)}  ${fit(agent, c.agent)}  ${fit(args, c.args)}  ${fit(findings, c.findings)}  ${fit(time, c.time)}`;
}

function detailLines(a: Approval, now: number): string[] {
  const decided = a.decided_at
    ? [`Decided   ${a.decided_at} by ${safeText(a.decided_by ?? '?', 60)}${a.comment ? `: ${safeText(a.comment, 200)}` : ''}`]
    : [];
  const findings =
    a.findings.length === 0
      ? ['Findings  none']
      : ['Findings', ...a.findings.map((f) => `  ${f.entity} (${f.detector}) in ${f.path}, ${f.effect}`)];
  const args =
    a.arguments === null || a.arguments === undefined
      ? []
      : [
          'Arguments (masked)',
          ...safeJson(a.arguments)
            .split('\n')
            .map((l) => `  ${l}`),
        ];
  return [
    `ID        ${a.id}   status ${a.status}`,
    `Held      ${heldSubject(a) ?? '-'}`,
    `Agent     ${agentLabel(a) ?? '-'}`,
    `Created   ${a.created_at}`,
    `Expires   ${a.expires_at} (${timeLeft(a, now)} left)`,
    ...(a.trace_id ? [`Trace     ${a.trace_id}`] : []),
    ...decided,
    ...findings,
    ...args,
  ];
}

/** The window of `count` rows out of `total` that keeps `selected` in view, roughly centred. */
export function listWindow(total: number, count: number, selected: number): { from: number; to: number } {
  if (total <= count) return { from: 0, to: total };
  const from = Math.max(0, Math.min(selected - Math.floor(count / 2), total - count));
  return { from, to: from + count };
}

function bottomLines(state: InboxState, width: number): [string, string] {
  const p = state.prompt;
  const keys = '↑/↓ or k/j select · a approve · d deny (each asks for an optional comment) · q quit';
  if (!p) return [fit(keys, width), fit(state.status, width)];
  // The question is cut to half the width at most, so the comment being typed always has room.
  const question = `${p.approved ? 'Approve' : 'Deny'} ${p.subject} (${p.id})`;
  const ask = `${fit(question, Math.max(8, Math.floor(width / 2) - 11)).trimEnd()}? Comment: `;
  // The end of a long comment stays in view, as in any input line.
  const room = Math.max(1, width - [...ask].length - 1);
  const typed = [...safeText(p.text)];
  const shown = typed.length > room ? `…${typed.slice(typed.length - room + 1).join('')}` : typed.join('');
  const line = fit(`${ask}${shown}`, width - 1);
  const hint = `Enter ${p.approved ? 'approves' : 'denies'} (the comment is optional and kept with the decision) · Esc cancels`;
  return [`${BOLD}${line.trimEnd()}${RESET}${INVERSE} ${RESET}`, fit(hint, width)];
}

/**
 * The whole screen, `height` lines of `width` characters: a header, one row per open request
 * (the selected one marked and in inverse video), the selected request in full, the keys or the
 * comment prompt, and the status line.
 */
export function renderInbox(state: InboxState, screen: Screen): string[] {
  const width = Math.max(20, screen.width);
  const height = Math.max(8, screen.height);
  const now = screen.now ?? Date.now();
  const c = columns(width);
  const n = state.approvals.length;
  const header = `Approval inbox · ${n} open · ${screen.source} · every ${screen.intervalSeconds} s${state.refreshedAt ? ` · ${state.refreshedAt}` : ''}`;
  const lines = [`${BOLD}${fit(header, width)}${RESET}`];
  const [keys, status] = bottomLines(state, width);
  const body = height - 3;
  if (n === 0) {
    lines.push(fit('', width), fit(state.refreshedAt ? 'No open approval requests; new ones appear here as they arrive.' : '', width));
  } else {
    lines.push(fit(row(c, ' ', ['HELD', 'AGENT', 'ARGUMENTS', 'FINDINGS', 'TIME LEFT']), width));
    const selected = selectedIndex(state);
    const { from, to } = listWindow(n, Math.max(1, Math.min(n, Math.floor((body - 2) / 2))), selected);
    for (let i = from; i < to; i++) {
      const a = state.approvals[i]!;
      const cells = [
        heldSubject(a) ?? '-',
        agentLabel(a) ?? '-',
        argumentSummary(a, c.args) ?? '-',
        findingsLabel(a),
        timeLeft(a, now),
      ] as const;
      const text = fit(row(c, i === selected ? '>' : ' ', cells), width);
      lines.push(i === selected ? `${INVERSE}${text}${RESET}` : text);
    }
    lines.push(fit(n > to - from ? `  ${to - from} of ${n} shown; move the selection to scroll` : '', width));
    const shown = state.approvals[selected];
    const detail = shown ? detailLines(state.detail?.id === shown.id ? state.detail : shown, now) : [];
    const room = body - lines.length + 1;
    const cut = detail.length > room ? [...detail.slice(0, Math.max(0, room - 1)), '  … (a taller terminal shows the rest)'] : detail;
    lines.push(...cut.map((l) => fit(l, width)));
  }
  while (lines.length < height - 2) lines.push(fit('', width));
  return [...lines.slice(0, height - 2), keys, status];
}
