// How the traces commands show trace data to a person. Trace text comes from AI traffic, i.e. from
// anyone, so control and bidi characters are escaped: no escape sequence in a prompt ever reaches
// the operator's terminal, and every value stays on its own line.
import { CliFailure, EXIT } from './errors.js';
import { keyValues } from './format.js';

/** A trace as the list returns it; the fields the CLI reads are named, the rest pass through. */
export interface Trace {
  id: string;
  timestamp: string;
  decision: string;
  reason: string | null;
  action_name: string | null;
  metadata: { agent_id?: string; [key: string]: unknown };
  userAction: string | null;
  [field: string]: unknown;
}

export interface TracePage {
  traces: Trace[];
  total: number;
}

/** C0, DEL and C1 controls (ESC and CSI among them) and the bidi overrides and isolates. */
const UNSAFE = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;
const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function escapeChar(c: string): string {
  return NAMED[c] ?? `\\u${c.codePointAt(0)!.toString(16).padStart(4, '0')}`;
}

/** One line of text, escaped, cut to `max` characters. */
export function safeText(value: string, max = Infinity): string {
  const text = value.replace(UNSAFE, escapeChar);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Indented JSON: JSON escapes C0 in strings already, this escapes what it leaves (DEL, C1, bidi). */
export function safeJson(value: unknown): string {
  return (JSON.stringify(value, null, 2) ?? 'null').replace(UNSAFE, (c) => (c === '\n' ? c : escapeChar(c)));
}

/** Every field of a record on its line; objects and lists as compact JSON. */
export function recordLines(record: Readonly<Record<string, unknown>>): string {
  return keyValues(
    Object.fromEntries(
      Object.entries(record).map(([k, v]) => {
        if (v !== null && typeof v === 'object') return [k, safeText(JSON.stringify(v))];
        return [k, typeof v === 'string' ? safeText(v) : (v as number | boolean | null | undefined)];
      }),
    ),
  );
}

/** The daemon answered, and no trace of the project has that id: a refusal, so exit 1. */
export class TraceNotFound extends CliFailure {
  readonly exitCode = EXIT.refused;
  readonly code = 'not_found';

  constructor(id: string) {
    super(`no trace with id ${safeText(id, 100)}`);
  }
}
