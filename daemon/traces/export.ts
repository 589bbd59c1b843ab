// CSV export of traces, streamed from a database cursor with constant memory: RFC 4180 quoting
// (CRLF records, every field holding a line break quoted), free-text cells that a spreadsheet would
// run as a formula escaped, display-safe content only, and a final `# truncated:` line at the row cap.
import type { ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { exportQuery } from '../../shared/export-schemas.js';
import type { Sql, Tx } from '../db/connect.js';
import { rangeHours } from './query.js';
import { contentView } from './rows.js';

export type ExportQuery = z.infer<typeof exportQuery>;

export const EXPORT_COLUMNS = [
  'id',
  'sequence_num',
  'timestamp',
  'decision',
  'reason',
  'integrity_hash',
  'action_name',
  'environment',
  'agent_id',
  'content_state',
  'display_content',
  'userAction',
  'justification',
] as const;

/**
 * Rows per cursor fetch. With the next fetch asked for in advance (prefetched), 1000, 2000 and
 * 5000 cost the same CPU per row; 1000 keeps two batches of wide rows (long prompts) small.
 */
const CURSOR_ROWS = 1000;
/**
 * Characters per res.write: one string per batch would be a flat copy of hundreds of kilobytes in
 * V8's large-object space, which only a full GC frees; the daemon's RSS then grew with the export's
 * length. Pieces this size die young.
 */
const CHUNK_CHARS = 16_384;

/** One row as selected below, in this order (`.values()`: arrays, no per-row object with named keys). */
type ExportRow = [
  id: string,
  seq: string,
  createdAt: string,
  decision: string,
  reason: string | null,
  integrityHash: string,
  actionName: string | null,
  environment: string,
  agentId: string | null,
  display: string | null,
  userAction: string | null,
  justification: string | null,
];

const NEEDS_QUOTES = /[",\r\n]/;
// What Excel, Calc, Sheets and Numbers (full-width forms) start a formula with (OWASP CSV injection).
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20']);

/** RFC 4180 field: quoted when it holds a quote, comma or any line break (a bare LF or CR too). */
function field(value: string | null): string {
  if (value === null) return '';
  return NEEDS_QUOTES.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A free-text field: as `field`, after a leading formula character is neutralised with `'`. */
function text(value: string | null): string {
  if (value === null || value === '') return '';
  return field(FORMULA_START.has(value[0]!) ? `'${value}` : value);
}

/**
 * PostgreSQL's ISO output in UTC ('2026-01-02 03:04:05.678901+00') as the list's Date#toISOString
 * shows it (milliseconds, truncated), without a Date per row; anything else goes through a Date.
 */
export function isoTimestamp(pg: string): string {
  const n = pg.length;
  if (n < 22 || pg[10] !== ' ' || pg[n - 3] !== '+' || pg[n - 2] !== '0' || pg[n - 1] !== '0') return new Date(pg).toISOString();
  const ms = pg[19] === '.' ? (pg.slice(20, n - 3) + '00').slice(0, 3) : '000';
  return pg.slice(0, 10) + 'T' + pg.slice(11, 19) + '.' + ms + 'Z';
}

/** One CSV record. Ids, numbers, timestamps, hashes and enums are never formula-escaped; only text a caller wrote is. */
function csvRecord(r: ExportRow): string {
  const view = contentView(r[3], r[9] === null ? null : { display: r[9] });
  return (
    r[0]
    + ','
    + r[1]
    + ','
    + isoTimestamp(r[2])
    + ','
    + field(r[3])
    + ','
    + text(r[4])
    + ','
    + field(r[5])
    + ','
    + text(r[6])
    + ','
    + text(r[7])
    + ','
    + text(r[8])
    + ','
    + view.content_state
    + ','
    + text(view.display_content)
    + ','
    + field(r[10])
    + ','
    + text(r[11])
    + '\r\n'
  );
}

/**
 * The rows of one export, oldest first. The latest reviewer action per trace comes from one pass
 * over the project's actions joined by hash, not a lookup per row (the list's lateral join is right
 * for 100 rows, not for a million), and of the content only the display text is read: no raw
 * original, payload or JSON parse ever reaches this process.
 */
function exportRows(tx: Tx, projectId: string, q: ExportQuery, limit: number) {
  const hours = rangeHours(q.time_range);
  return tx`
    select t.id, t.sequence_num, t.created_at::text, t.decision, t.reason, t.integrity_hash, t.action_name, t.environment, t.agent_id,
           case when jsonb_typeof(c.body -> 'display') = 'string' then c.body ->> 'display' end,
           ua.action, ua.justification
    from traces t
    left join trace_content c on c.trace_id = t.id
    left join (
      select distinct on (a.trace_id) a.trace_id, a.action, a.justification
      from trace_actions a where a.project_id = ${projectId}
      order by a.trace_id, a.created_at desc
    ) ua on ua.trace_id = t.id
    where t.project_id = ${projectId}
      ${hours ? tx`and t.created_at >= now() - make_interval(hours => ${hours})` : tx``}
      ${q.decision ? tx`and t.decision = ${q.decision}` : tx``}
    order by t.sequence_num
    limit ${limit}`.values();
}

/**
 * The batches of a cursor, each fetch asked for as soon as the previous batch arrived: PostgreSQL
 * produces the next rows while this process formats and writes the last ones (at most two batches
 * in memory). Leaving early waits for the fetch under way and closes the cursor, or the
 * transaction could never end.
 */
async function* prefetched<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  try {
    for (;;) {
      const current = await next;
      if (current.done) return;
      next = it.next();
      yield current.value;
    }
  } finally {
    const last = await next.catch((): IteratorResult<T> => ({ done: true, value: undefined }));
    if (!last.done) await it.return?.();
  }
}

/** Resolves when the response has flushed what it queued; rejects when the client went away first. */
function drained(res: ServerResponse): Promise<void> {
  if (res.destroyed) return Promise.reject(new Error('client went away'));
  return new Promise((resolve, reject) => {
    const done = () => {
      res.off('close', gone);
      resolve();
    };
    const gone = () => {
      res.off('drain', done);
      reject(new Error('client went away'));
    };
    res.once('drain', done);
    res.once('close', gone);
  });
}

/**
 * Writes the first `take` rows of a batch, then `trailer`, and empties the batch. False when the
 * response asked to wait for 'drain' (it then holds at most this batch).
 */
function writeBatch(res: ServerResponse, rows: ExportRow[], take: number, trailer: string): boolean {
  let chunk = '';
  let flowing = true;
  for (let i = 0; i < take; i++) {
    chunk += csvRecord(rows[i]!);
    if (chunk.length >= CHUNK_CHARS) {
      flowing = res.write(chunk) && flowing;
      chunk = '';
    }
  }
  // postgres.js keeps each batch in an array that V8 soon allocates in old space; until a full GC
  // finds it dead, its slots keep the rows alive through every young-generation GC, so they were
  // promoted and the heap (and RSS) grew with the export's length. Emptied, they die young.
  rows.length = 0;
  chunk += trailer;
  return (chunk === '' || res.write(chunk)) && flowing;
}

export async function streamExport(sql: Sql, projectId: string, q: ExportQuery, rowCap: number, res: ServerResponse): Promise<void> {
  let started = false;
  try {
    // One snapshot for the whole file, however many fetches it takes.
    await sql.begin('isolation level repeatable read read only', async (tx) => {
      // Timestamps as text in UTC, formatted without a Date per row (isoTimestamp); and no JIT: a
      // large export's planner cost crosses jit_above_cost, and compiling took longer (0.5 s) than
      // this plain projection gains.
      await tx`select set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO', true), set_config('jit', 'off', true)`;
      res.statusCode = 200;
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="traces-${new Date().toISOString().slice(0, 10)}.csv"`);
      started = true;
      res.write(EXPORT_COLUMNS.join(',') + '\r\n');
      let written = 0;
      for await (const batch of prefetched(exportRows(tx, projectId, q, rowCap + 1).cursor(CURSOR_ROWS))) {
        const rows = batch as unknown as ExportRow[];
        const take = Math.min(rows.length, rowCap - written);
        const truncated = take < rows.length;
        written += take;
        const trailer = truncated ? `# truncated: row cap of ${rowCap} reached; narrow the export with decision or time_range\r\n` : '';
        if (!writeBatch(res, rows, take, trailer)) await drained(res);
        if (truncated) break;
      }
    });
    res.end();
  } catch (err) {
    // Before the first byte the caller can still answer with an error; after it, the only honest
    // signal left is to cut the connection, never a half file that looks whole.
    if (!started) throw err;
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}
