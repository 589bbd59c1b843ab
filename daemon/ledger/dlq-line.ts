// One line of the traces' dead-letter queue (dlq.ts): `<sha256 hex of the JSON> <JSON>\n`. JSON.stringify
// escapes every control character, so a record never contains a line feed; a line whose checksum
// fails, that is not JSON or not a trace record is read back as a problem, never as a record.
import { createHash } from 'node:crypto';
import type { TraceInput } from './streams.js';

/** One queued trace. `occurred_at` is the decision time; the ledger row's created_at is the replay's commit. */
export interface DlqRecord {
  readonly v: 1;
  readonly id: string;
  readonly project_id: string;
  readonly occurred_at: string;
  readonly trace: Omit<TraceInput, 'id'>;
}

/** A line read back: a record, or what is wrong with it. */
export interface DlqLine {
  readonly offset: number;
  readonly end: number;
  readonly record: DlqRecord | null;
  readonly problem: string | null;
  readonly raw: Buffer;
}

export const LF = 0x0a;
const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');

export function encodeLine(record: DlqRecord): string {
  const json = JSON.stringify(record);
  return `${sha256(json)} ${json}\n`;
}

function isRecord(v: unknown): v is DlqRecord {
  if (!v || typeof v !== 'object') return false;
  const r = v as Record<string, unknown>;
  const trace = r.trace as Record<string, unknown> | null;
  return (
    r.v === 1
    && typeof r.id === 'string'
    && typeof r.project_id === 'string'
    && typeof r.occurred_at === 'string'
    && !!trace
    && typeof trace === 'object'
    && typeof trace.traceType === 'string'
    && typeof trace.decision === 'string'
    && !!trace.content
    && typeof trace.content === 'object'
  );
}

export function parseLine(raw: Buffer, offset: number, end: number): DlqLine {
  const bad = (problem: string): DlqLine => ({ offset, end, record: null, problem, raw });
  if (raw.length < 66 || raw[64] !== 0x20) return bad('damaged record: no checksum');
  const json = raw.subarray(65);
  if (sha256(json) !== raw.subarray(0, 64).toString('latin1')) return bad('damaged record: checksum mismatch');
  let value: unknown;
  try {
    value = JSON.parse(json.toString('utf8'));
  } catch {
    return bad('damaged record: not JSON');
  }
  return isRecord(value) ? { offset, end, record: value, problem: null, raw } : bad('damaged record: not a trace record');
}
