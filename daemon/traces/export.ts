// CSV export of traces, streamed from a database cursor with constant memory: RFC 4180 quoting
// (CRLF records, every field holding a line break quoted), cells that a spreadsheet would run as a
// formula escaped, display-safe content only, and a final `# truncated:` line at the row cap.
import type { ServerResponse } from 'node:http';
import { stringify } from 'csv-stringify/sync';
import type { z } from 'zod';
import type { exportQuery } from '../../shared/export-schemas.js';
import type { Sql } from '../db/connect.js';
import { auditLevel, rangeHours, selectTraces } from './query.js';
import { listRow, type StoredTrace } from './rows.js';

export type ExportQuery = z.infer<typeof exportQuery>;

export const EXPORT_COLUMNS = ['id', 'sequence_num', 'timestamp', 'decision', 'reason', 'integrity_hash', 'action_name', 'environment',
  'agent_id', 'content_state', 'display_content', 'userAction', 'justification'] as const;

const CURSOR_ROWS = 1000;

function csv(records: unknown[][]): string {
  return stringify(records, { record_delimiter: 'windows', escape_formulas: true, quoted_match: /[\r\n]/ });
}

function writeChunk(res: ServerResponse, text: string): Promise<void> {
  if (res.write(text)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = () => { res.off('drain', done); res.off('close', gone); resolve(); };
    const gone = () => { res.off('drain', done); reject(new Error('client went away')); };
    res.on('drain', done);
    res.once('close', gone);
  });
}

export async function streamExport(sql: Sql, projectId: string, q: ExportQuery, rowCap: number, res: ServerResponse): Promise<void> {
  const hours = rangeHours(q.time_range);
  const level = await auditLevel(sql, projectId);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="traces-${new Date().toISOString().slice(0, 10)}.csv"`);
  await writeChunk(res, csv([[...EXPORT_COLUMNS]]));
  let written = 0;
  let truncated = false;
  const query = sql<StoredTrace[]>`${selectTraces(sql)}
    where t.project_id = ${projectId}
      ${hours ? sql`and t.created_at >= now() - make_interval(hours => ${hours})` : sql``}
      ${q.decision ? sql`and t.decision = ${q.decision}` : sql``}
    order by t.sequence_num
    limit ${rowCap + 1}`;
  try {
    for await (const rows of query.cursor(CURSOR_ROWS)) {
      const records: unknown[][] = [];
      for (const row of rows) {
        if (written === rowCap) { truncated = true; break; }
        const view = listRow(row, level);
        records.push(EXPORT_COLUMNS.map((c) => (c === 'agent_id' ? row.agent_id : view[c]) ?? ''));
        written += 1;
      }
      if (records.length > 0) await writeChunk(res, csv(records));
      if (truncated || res.destroyed) break;
    }
    if (truncated) await writeChunk(res, `# truncated: row cap of ${rowCap} reached; narrow the export with decision or time_range\r\n`);
    res.end();
  } catch (err) {
    // Headers are gone: the only honest signal left is to cut the connection, never a half file that looks whole.
    res.destroy(err instanceof Error ? err : new Error(String(err)));
  }
}
