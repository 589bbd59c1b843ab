// Re-verifies a project's whole chain for one stream, streaming rows in sequence order: every
// row's hash is recomputed, every link to its predecessor checked, every sequence number
// accounted for, and (for traces) retained content checked against its committed hash.
// Names the first broken link.
import { contentHash, entryHash, GENESIS_HASH } from '../../shared/ledger-hash.js';
import type { ChainReport } from '../../shared/trace-schemas.js';
import type { Sql } from '../db/connect.js';
import { headerOfRow, type StreamName } from './streams.js';

type Row = Record<string, unknown> & { sequence_num: string; id: string; prev_hash: string; integrity_hash: string };

function checkRow(row: Row, expectedSeq: number, prevHash: string, content: { salt: Buffer; body: unknown } | null): string | null {
  if (Number(row.sequence_num) !== expectedSeq) return `sequence gap: expected ${expectedSeq}, found ${row.sequence_num}`;
  if (row.prev_hash !== prevHash) return 'prev_hash does not match the previous entry';
  if (entryHash(headerOfRow(row)) !== row.integrity_hash) return 'integrity_hash does not match the stored fields';
  if (content && contentHash(content.salt, content.body) !== row.content_hash) return 'stored content does not match content_hash';
  return null;
}

export async function checkChain(sql: Sql, projectId: string, stream: StreamName): Promise<ChainReport> {
  let expectedSeq = 1;
  let prevHash = GENESIS_HASH;
  let broken: ChainReport['first_broken'] = null;
  const query =
    stream === 'traces'
      ? sql<(Row & { salt: Buffer | null; body: unknown })[]>`
        select t.*, c.salt, c.body from traces t left join trace_content c on c.trace_id = t.id
        where t.project_id = ${projectId} order by t.sequence_num`
      : sql<(Row & { salt: null; body: null })[]>`
        select a.*, null::bytea as salt, null::jsonb as body from admin_log a
        where a.project_id = ${projectId} order by a.sequence_num`;
  for await (const rows of query.cursor(1000)) {
    for (const { salt, body, ...row } of rows) {
      const reason = checkRow(row as Row, expectedSeq, prevHash, salt ? { salt, body } : null);
      if (reason && !broken) broken = { sequence_num: Number(row.sequence_num), id: String(row.id), reason };
      expectedSeq = Number(row.sequence_num) + 1;
      prevHash = String(row.integrity_hash);
    }
  }
  const table = stream === 'traces' ? 'traces' : 'admin_log';
  const [head] = await sql<{ seq: string; head: string }[]>`
    select seq, head from ledger_heads where project_id = ${projectId} and stream = ${stream}`;
  const checked = expectedSeq - 1;
  if (!broken && head && (Number(head.seq) !== checked || head.head !== prevHash)) {
    broken = {
      sequence_num: Number(head.seq),
      id: null,
      reason: `chain head (seq ${head.seq}) does not match the last row of ${table} (seq ${checked})`,
    };
  }
  return { stream, intact: broken === null, checked, head: prevHash, first_broken: broken };
}
