// The `slack` format: an event rendered as a Slack incoming-webhook body, `{text, blocks}` (text is
// the notification and fallback line, blocks the message). Every value from the event is escaped
// for Slack's mrkdwn (&, <, > as entities), so text from a tool call cannot mention @channel or
// forge a link; text shown as code loses its backticks. An approval request names the gatewayctl
// commands that decide it, and links its page in the web console.
import { cut, type EventBody } from '../notifications/events.js';

type Block = Record<string, unknown>;
export interface SlackBody {
  text: string;
  blocks: Block[];
}

const SECTION_MAX_CHARS = 2900; // Slack refuses a section text over 3000 characters

/** mrkdwn-safe text: Slack's three control characters as entities. */
export function escapeMrkdwn(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

/** Inline code that stays code: no backtick of the value can close it. */
const code = (value: unknown): string => '`' + escapeMrkdwn(value).replace(/`/g, 'ˋ') + '`';
const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text: cut(text, SECTION_MAX_CHARS) } });
const context = (text: string): Block => ({ type: 'context', elements: [{ type: 'mrkdwn', text: cut(text, SECTION_MAX_CHARS) }] });
const header = (text: string): Block => ({ type: 'header', text: { type: 'plain_text', text: cut(text, 150), emoji: false } });

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
/** "name (id)", or whichever of the two is known. */
const named = (name: unknown, id: unknown): string => {
  const n = str(name);
  const i = str(id);
  return n && i ? `${n} (${i})` : (n ?? i ?? 'unknown');
};

function approvalRequested(d: Record<string, unknown>, ts: string): SlackBody {
  const id = String(d.approval_id);
  const subject =
    d.kind === 'verify' ? `a prompt (trace ${String(d.trace_id)})` : `${String(d.tool)} on ${named(d.server_name, d.server_id)}`;
  const agent = d.agent_id ? named(d.agent_name, d.agent_id) : 'anonymous';
  const findings = Array.isArray(d.findings) ? d.findings : [];
  const decide = `gatewayctl approvals decide ${id}`;
  const blocks: Block[] = [
    header('Approval requested'),
    section(
      [
        `*Held:* ${escapeMrkdwn(subject)}`,
        `*Agent:* ${escapeMrkdwn(agent)}`,
        `*Expires:* ${escapeMrkdwn(d.expires_at)}`,
        `*Approval:* ${code(id)}`,
      ].join('\n'),
    ),
  ];
  // Our own link (console-link.ts); <, > and | would end Slack's link syntax, so they stay percent-encoded.
  const page = str(d.console_url);
  if (page) blocks.push(section(`<${page.replace(/[<>|]/g, encodeURIComponent)}|Open this request in the console>`));
  if (str(d.arguments_summary)) blocks.push(section(`*Arguments (masked):* ${code(d.arguments_summary)}`));
  if (findings.length > 0) {
    const list = findings.map((f) => {
      const x = f as Record<string, unknown>;
      return `${escapeMrkdwn(x.detector)} ${escapeMrkdwn(x.entity ?? '')} at ${code(x.path ?? '')} (${escapeMrkdwn(x.effect ?? '')})`;
    });
    blocks.push(section(`*Findings:*\n${list.join('\n')}`));
  }
  blocks.push(
    section(`*Approve:* ${code(`${decide} --approve --comment "why"`)}\n*Deny:* ${code(`${decide} --deny --comment "why"`)}`),
    context(`governance-gateway · ${escapeMrkdwn(ts)}`),
  );
  const text = `Approval requested for ${escapeMrkdwn(subject)} by ${escapeMrkdwn(agent)}; decide with: ${decide} --approve | --deny`;
  return { text: cut(text, SECTION_MAX_CHARS), blocks };
}

/** The one line that says what happened, for every other event. */
function headline(type: string, d: Record<string, unknown>): string {
  switch (type) {
    case 'approval.decided':
      return `Approval ${String(d.approval_id)} ${d.approved ? 'approved' : 'denied'} by ${String(d.decided_by)}${d.comment ? `: ${String(d.comment)}` : ''}`;
    case 'approval.expired':
      return `Approval ${String(d.approval_id)} expired undecided${d.tool ? ` (${String(d.tool)})` : ''}`;
    case 'mcp.tool.changed':
      return `Tool ${String(d.tool_name)} on ${named(d.server_name, d.server_id)} changed since it was admitted; it is not callable until admitted again`;
    case 'mcp.scan.failed':
      return `Scan of ${named(d.server_name, d.server_id)} failed (${String(d.reason)}): ${String(d.detail)}`;
    case 'project.emergency_stop.activated':
      return `Project emergency stop ACTIVATED by ${String(d.activated_by)}${d.reason ? `: ${String(d.reason)}` : ''} (${String(d.approvals_ended)} open approvals ended)`;
    case 'project.emergency_stop.lifted':
      return `Project emergency stop lifted by ${String(d.lifted_by)}${d.reason ? `: ${String(d.reason)}` : ''}`;
    case 'anchoring.degraded':
      return `Ledger anchoring degraded: epoch ${String(d.epoch)} ${String(d.state)}: ${String(d.reason)}`;
    case 'test':
      return String(d.message);
    default:
      return type;
  }
}

export function slackBody(event: EventBody): SlackBody {
  if (event.type === 'approval.requested') return approvalRequested(event.data, event.timestamp);
  const line = escapeMrkdwn(headline(event.type, event.data));
  return {
    text: cut(line, SECTION_MAX_CHARS),
    blocks: [section(line), context(`governance-gateway · ${code(event.type)} · ${escapeMrkdwn(event.timestamp)}`)],
  };
}
