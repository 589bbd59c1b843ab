// Appends entries to one project's stream inside a caller's transaction: lock the chain head,
// number and hash the entries in order, insert them, move the head. The group-commit writer and
// every domain transaction that must log atomically (admin actions, lifecycle changes) use this.
import { entryHash, GENESIS_HASH } from '../../shared/ledger-hash.js';
import { bucketOf, groupCounts, type CounterGroup } from './counters.js';
import type { Sql, Tx } from '../db/connect.js';
import { beginSurvivingDisconnect, isDatabaseUnreachable } from '../db/unreachable.js';
import { buildAdmin, buildTrace, STREAM_TABLE, type AdminInput, type BuiltEntry, type StreamName, type TraceInput } from './streams.js';

export interface Appended {
  readonly id: string;
  readonly sequenceNum: number;
  readonly integrityHash: string;
  readonly createdAt: string;
}

type Builder<I> = (input: I, at: { projectId: string; seq: number; createdAt: string; prevHash: string }) => BuiltEntry;

function selectHead(q: Tx, projectId: string, stream: StreamName) {
  return q<{ seq: string; head: string }[]>`
    select seq, head from ledger_heads where project_id = ${projectId} and stream = ${stream} for update`;
}

async function lockHead(tx: Tx, projectId: string, stream: StreamName): Promise<{ seq: number; head: string }> {
  const rows = await selectHead(tx, projectId, stream);
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
  tx: Tx,
  stream: StreamName,
  projectId: string,
  inputs: readonly I[],
  build: Builder<I>,
  counters?: (inputs: readonly I[]) => CounterGroup[],
): Promise<Appended[]> {
  if (inputs.length === 0) return [];
  const batch = buildBatch(stream, projectId, await lockHead(tx, projectId, stream), inputs, build, counters);
  await writeBatch(tx, batch);
  return batch.out;
}

interface Batch {
  readonly stream: StreamName;
  readonly projectId: string;
  readonly seq: number;
  readonly head: string;
  readonly createdAt: string;
  readonly rows: readonly Record<string, unknown>[];
  readonly extras: readonly Record<string, unknown>[];
  readonly counts: readonly CounterGroup[];
  readonly out: Appended[];
}

/** Numbers and hashes the entries after the locked head. */
function buildBatch<I>(
  stream: StreamName,
  projectId: string,
  locked: { seq: number; head: string },
  inputs: readonly I[],
  build: Builder<I>,
  counters?: (inputs: readonly I[]) => CounterGroup[],
): Batch {
  let { seq, head } = locked;
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
  return { stream, projectId, seq, head, createdAt, rows, extras, counts: counters?.(inputs) ?? [], out };
}

/** The batch's one statement: entries, their content and counters, the head moved. */
function writeBatch(tx: Tx, b: Batch) {
  const { stream, projectId, seq, head } = b;
  const table = STREAM_TABLE[stream];
  const insertRows = b.rows.map((r) => withJson(tx, r, stream === 'admin' ? ['details'] : []));
  if (b.extras.length > 0) {
    const contentRows = b.extras.map((r) => withJson(tx, r, ['body']));
    return tx`
      with entries as (insert into ${tx(table)} ${tx(insertRows)}),
           content as (insert into trace_content ${tx(contentRows)})${
             b.counts.length > 0
               ? tx`,
           counts as (${upsertCounts(tx, projectId, b.createdAt, b.counts)})`
               : tx``
           }
      update ledger_heads set seq = ${seq}, head = ${head} where project_id = ${projectId} and stream = ${stream}`;
  }
  return tx`
    with entries as (insert into ${tx(table)} ${tx(insertRows)})
    update ledger_heads set seq = ${seq}, head = ${head} where project_id = ${projectId} and stream = ${stream}`;
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

/** The chain head this daemon last wrote, per project (the trace writer keeps one). */
export type KnownHeads = Map<string, { seq: number; head: string }>;

const KNOWN_HEADS_MAX = 10_000;

/** Keeps the head just written, most recent last; the least recently written beyond the bound are forgotten. */
function remember(known: KnownHeads | undefined, projectId: string, head: { seq: number; head: string }): void {
  if (!known) return;
  known.set(projectId, head);
  for (const oldest of known.keys()) {
    if (known.size <= KNOWN_HEADS_MAX) break;
    known.delete(oldest);
  }
}

/**
 * The batch in one statement and one round trip, valid only if the chain head is still `known`
 * (the head this daemon wrote last). The head row is updated where it still holds `known`, and
 * every insert reads its rows through that update: a head anyone else moved meanwhile makes the
 * statement write nothing and answer false. The update is the statement's first lock, so a
 * transaction holding the head (appendTraces) is waited for and the row re-checked after it
 * commits (READ COMMITTED), never a deadlock. The rows go as one JSON parameter so the statement's
 * text, and its prepared plan, are the same for every batch size.
 */
async function writeIfHead(sql: Sql, b: Batch, known: { seq: number; head: string }): Promise<boolean> {
  const content = b.extras.map((r) => ({ ...r, salt: `\\x${(r.salt as Buffer).toString('hex')}` })); // bytea's hex input
  const [moved] = await sql<{ n: number }[]>`
    with moved as (
      update ledger_heads set seq = ${b.seq}, head = ${b.head}
      where project_id = ${b.projectId} and stream = 'traces' and seq = ${known.seq} and head = ${known.head}
      returning 1 as moved),
    entries as (
      insert into traces (id, project_id, sequence_num, created_at, trace_type, decision, reason, action_name, environment, agent_id, content_hash, prev_hash, integrity_hash)
      select id, project_id, sequence_num, created_at, trace_type, decision, reason, action_name, environment, agent_id, content_hash, prev_hash, integrity_hash
      from moved, jsonb_populate_recordset(null::traces, ${sql.json(b.rows as never)})),
    content as (
      insert into trace_content (trace_id, project_id, created_at, salt, body)
      select trace_id, project_id, created_at, salt, body from moved, jsonb_populate_recordset(null::trace_content, ${sql.json(content as never)})),
    counts as (
      insert into trace_counts (project_id, grain, dim, bucket, trace_type, decision, key, count)
      select ${b.projectId}, 'minute', c.dim, ${bucketOf(b.createdAt, 'minute')}::timestamptz, c.trace_type, c.decision, c.key, c.count
      from moved, jsonb_to_recordset(${sql.json(b.counts as never)}) as c(dim text, trace_type text, decision text, key text, count bigint)
      on conflict (project_id, grain, dim, bucket, trace_type, decision, key) do update set count = trace_counts.count + excluded.count)
    select count(*)::int as n from moved`;
  return moved!.n === 1;
}

/**
 * appendTraces in a transaction of its own. When `known` holds the head this daemon wrote last,
 * one round trip (writeIfHead); otherwise, or when someone else moved the head since, two instead
 * of four: on one reserved
 * connection BEGIN goes out with the head's lock, and COMMIT with the insert (pipelined). The same
 * statements in the same transaction as sql.begin((tx) => appendTraces(tx, ...)): a failed insert
 * makes the COMMIT a rollback; a failed lock is rolled back. When the connection is lost nothing
 * more is written to it and it is not released (postgres.js has already moved it to its closed
 * connections; writing to it is porsager/postgres#1208, see dlq-outcome.ts): the error is the
 * caller's, as from sql.begin.
 */
export async function appendTracesAlone(
  sql: Sql,
  projectId: string,
  inputs: readonly TraceInput[],
  known?: KnownHeads,
): Promise<Appended[]> {
  if (inputs.length === 0) return [];
  const last = known?.get(projectId);
  known?.delete(projectId); // set again only by a write that succeeded
  if (last) {
    const batch = buildBatch('traces', projectId, last, inputs, buildTrace, groupCounts);
    if (await writeIfHead(sql, batch, last)) {
      remember(known, projectId, { seq: batch.seq, head: batch.head });
      return batch.out;
    }
  }
  const written = await appendLocked(sql, projectId, inputs);
  remember(known, projectId, written.head);
  return written.out;
}

/** appendTracesAlone with the head's lock: two round trips. */
async function appendLocked(
  sql: Sql,
  projectId: string,
  inputs: readonly TraceInput[],
): Promise<{ out: Appended[]; head: { seq: number; head: string } }> {
  const c = await sql.reserve();
  const tx = c as unknown as Tx;
  let keep = false; // released already, or lost with its connection
  try {
    const [begun, locked] = await Promise.allSettled([tx`begin`, selectHead(tx, projectId, 'traces')]);
    if (begun.status === 'rejected') throw begun.reason; // no transaction: the lock's statement ended with itself
    if (locked.status === 'rejected') {
      if (!isDatabaseUnreachable(locked.reason)) await tx`rollback`;
      throw locked.reason;
    }
    if (locked.value.length === 0) {
      // the first trace of the project: the head row is made in a transaction of its own
      await tx`rollback`;
      c.release();
      keep = true;
      const out = await beginSurvivingDisconnect(sql, (t) => appendTraces(t, projectId, inputs));
      return { out, head: { seq: out.at(-1)!.sequenceNum, head: out.at(-1)!.integrityHash } };
    }
    const row = locked.value[0]!;
    const batch = buildBatch('traces', projectId, { seq: Number(row.seq), head: row.head }, inputs, buildTrace, groupCounts);
    const [written, committed] = await Promise.allSettled([writeBatch(tx, batch), tx`commit`]);
    if (written.status === 'rejected') throw written.reason; // the COMMIT after it rolled back
    if (committed.status === 'rejected') throw committed.reason;
    return { out: batch.out, head: { seq: batch.seq, head: batch.head } };
  } catch (err) {
    keep ||= isDatabaseUnreachable(err);
    throw err;
  } finally {
    if (!keep) c.release();
  }
}

export function appendAdmin(tx: Tx, projectId: string, inputs: readonly AdminInput[]): Promise<Appended[]> {
  return appendWith(tx, 'admin', projectId, inputs, buildAdmin);
}
