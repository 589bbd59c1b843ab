// Appends entries to one project's stream inside a caller's transaction: lock the chain head,
// number and hash the entries in order, insert them, move the head. The group-commit writer and
// every domain transaction that must log atomically (admin actions, lifecycle changes) use this.
import { entryHash, GENESIS_HASH } from '../../shared/ledger-hash.js';
import { bucketOf, groupCounts, type CounterGroup } from '../command-center/counter-keys.js';
import type { Tx } from '../db/connect.js';
import { buildAdmin, buildTrace, STREAM_TABLE, type AdminInput, type BuiltEntry, type StreamName, type TraceInput } from './streams.js';

export interface Appended {
  readonly id: string;
  readonly sequenceNum: number;
  readonly integrityHash: string;
  readonly createdAt: string;
}

type Builder<I> = (input: I, at: { projectId: string; seq: number; createdAt: string; prevHash: string }) => BuiltEntry;

async function lockHead(tx: Tx, projectId: string, stream: StreamName): Promise<{ seq: number; head: string }> {
  const rows = await tx<{ seq: string; head: string }[]>`
    select seq, head from ledger_heads where project_id = ${projectId} and stream = ${stream} for update`;
  if (rows.length > 0) return { seq: Number(rows[0]!.seq), head: rows[0]!.head };
  await tx`insert into ledger_heads (project_id, stream, seq, head) values (${projectId}, ${stream}, 0, ${GENESIS_HASH})
           on conflict do nothing`;
  return lockHead(tx, projectId, stream);
}

/**
 * The command center's counters of a batch (sql/00012_counters.sql), upserted in the statement that
 * inserts its traces: the batch's distinct keys as one JSON parameter, into the batch's minute.
 */
function upsertCounts(tx: Tx, projectId: string, createdAt: string, counts: readonly CounterGroup[]) {
  return tx`
    insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
    select ${projectId}, 'minute', c.dim, ${bucketOf(createdAt, 'minute')}::timestamptz, c.trace_type, c.decision, c.key, c.count
    from jsonb_to_recordset(${tx.json(counts as never)}) as c(dim text, trace_type text, decision text, key text, count bigint)
    on conflict (project_id, grain, dim, bucket, trace_type, decision, key) do update set count = trace_counts.count + excluded.count`;
}

async function appendWith<I>(
  tx: Tx, stream: StreamName, projectId: string, inputs: readonly I[], build: Builder<I>,
  counters?: (inputs: readonly I[]) => CounterGroup[],
): Promise<Appended[]> {
  if (inputs.length === 0) return [];
  let { seq, head } = await lockHead(tx, projectId, stream);
  // One timestamp source per batch, never earlier than the previous entry's, keeps time ordered with sequence.
  const createdAt = new Date().toISOString();
  const rows: Record<string, unknown>[] = [];
  const extras: Record<string, unknown>[] = [];
  const out: Appended[] = [];
  for (const input of inputs) {
    seq += 1;
    const entry = build(input, { projectId, seq, createdAt, prevHash: head });
    head = entryHash(entry.header);
    rows.push({ ...entry.header, integrity_hash: head });
    if (entry.extra) extras.push(entry.extra.row);
    out.push({ id: String(entry.header.id), sequenceNum: seq, integrityHash: head, createdAt });
  }
  const table = STREAM_TABLE[stream];
  const jsonColumns = stream === 'admin' ? ['details'] : [];
  const insertRows = rows.map((r) => withJson(tx, r, jsonColumns));
  const counts = counters?.(inputs) ?? [];
  if (extras.length > 0) {
    const contentRows = extras.map((r) => withJson(tx, r, ['body']));
    await tx`
      with entries as (insert into ${tx(table)} ${tx(insertRows)}),
           content as (insert into trace_content ${tx(contentRows)})${counts.length > 0 ? tx`,
           counts as (${upsertCounts(tx, projectId, createdAt, counts)})` : tx``}
      update ledger_heads set seq = ${seq}, head = ${head} where project_id = ${projectId} and stream = ${stream}`;
  } else {
    await tx`
      with entries as (insert into ${tx(table)} ${tx(insertRows)})
      update ledger_heads set seq = ${seq}, head = ${head} where project_id = ${projectId} and stream = ${stream}`;
  }
  return out;
}

function withJson(tx: Tx, row: Record<string, unknown>, columns: string[]): Record<string, unknown> {
  if (columns.length === 0) return row;
  const copy = { ...row };
  for (const c of columns) copy[c] = tx.json(copy[c] as never);
  return copy;
}

export function appendTraces(tx: Tx, projectId: string, inputs: readonly TraceInput[]): Promise<Appended[]> {
  return appendWith(tx, 'traces', projectId, inputs, buildTrace, groupCounts);
}

export function appendAdmin(tx: Tx, projectId: string, inputs: readonly AdminInput[]): Promise<Appended[]> {
  return appendWith(tx, 'admin', projectId, inputs, buildAdmin);
}
