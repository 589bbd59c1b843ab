// Puts dead-lettered traces back into the ledger, in file order per project, each at most once:
// a record whose id is already in `traces` (its COMMIT succeeded but the answer was lost, or a
// crash came between the replay's commit and the queue's truncation) is skipped. Sequence numbers,
// hashes and created_at are given here, at replay, as for any append.
import type { Sql, Tx } from '../db/connect.js';
import { SQLSTATE, sqlState } from '../db/sqlstate.js';
import { appendTraces } from './append.js';
import type { DeadLetterQueue, SetAsideKind } from './dlq.js';
import type { DlqLine, DlqRecord } from './dlq-line.js';
import { beginSurvivingDisconnect, isDatabaseUnreachable } from '../db/unreachable.js';
import type { TraceInput } from './streams.js';

export interface ReplayHooks {
  replayed(count: number): void;
  /** True once the daemon is shutting down: replay stops after the current chunk, the rest waits for the next start. */
  stopping(): boolean;
  /** A line that cannot go into the ledger was set aside in `file`. */
  setAside(kind: SetAsideKind, detail: { offset: number; reason: string; id: string | null; file: string }): void;
}

export interface ReplayProgress {
  /** Offset up to which every line is in the ledger or set aside. */
  readonly offset: number;
  readonly lines: number;
  /** False when PostgreSQL went away again (or the daemon is stopping) before `to`. */
  readonly reachable: boolean;
}

interface Context {
  readonly sql: Sql;
  readonly dlq: DeadLetterQueue;
  readonly hooks: ReplayHooks;
  /** Offsets already set aside in this run, so a chunk replayed twice reports them once. */
  readonly seen: Set<number>;
}

export function inputOf(record: DlqRecord): TraceInput {
  return { ...record.trace, id: record.id };
}

async function insertMissing(tx: Tx, projectId: string, records: readonly DlqRecord[]): Promise<number> {
  // Locking the head first waits out a transaction of this project whose answer was lost, so its rows are seen.
  await tx`select 1 from ledger_heads where project_id = ${projectId} and stream = 'traces' for update`;
  const present = await tx<{ id: string }[]>`
    select id::text as id from traces where id = any(${tx.array(records.map((r) => r.id))}::uuid[])`;
  const have = new Set(present.map((r) => r.id));
  const fresh = records.filter((r) => !have.has(r.id));
  await appendTraces(tx, projectId, fresh.map(inputOf));
  return fresh.length;
}

async function setAside(ctx: Context, kind: SetAsideKind, offset: number, reason: string, entry: Record<string, unknown>): Promise<void> {
  if (ctx.seen.has(offset)) return;
  const file = await ctx.dlq.setAside(kind, { offset, reason, ...entry });
  ctx.seen.add(offset);
  ctx.hooks.setAside(kind, { offset, reason, id: typeof entry.id === 'string' ? entry.id : null, file });
}

/** One record at a time, to find the one the database refuses (input it could not check while down). */
async function replayOneByOne(ctx: Context, projectId: string, lines: readonly DlqLine[]): Promise<boolean> {
  for (const line of lines) {
    const record = line.record!;
    for (let attempt = 0; ; attempt++) {
      try {
        ctx.hooks.replayed(await beginSurvivingDisconnect(ctx.sql, (tx) => insertMissing(tx, projectId, [record])));
        break;
      } catch (err) {
        if (isDatabaseUnreachable(err)) return false;
        // A racing commit of the same id: the second attempt sees it and skips.
        if (sqlState(err) === SQLSTATE.uniqueViolation && attempt === 0) continue;
        await setAside(ctx, 'rejected', line.offset, `refused by the database (SQLSTATE ${sqlState(err) ?? 'unknown'})`, {
          id: record.id,
          record,
        });
        break;
      }
    }
  }
  return true;
}

async function replayProject(ctx: Context, projectId: string, lines: readonly DlqLine[]): Promise<boolean> {
  try {
    ctx.hooks.replayed(
      await beginSurvivingDisconnect(ctx.sql, (tx) =>
        insertMissing(
          tx,
          projectId,
          lines.map((l) => l.record!),
        ),
      ),
    );
    return true;
  } catch (err) {
    if (isDatabaseUnreachable(err)) return false;
    return replayOneByOne(ctx, projectId, lines);
  }
}

async function replayChunk(ctx: Context, chunk: readonly DlqLine[]): Promise<boolean> {
  const byProject = new Map<string, DlqLine[]>();
  for (const line of chunk) {
    if (!line.record) {
      await setAside(ctx, 'corrupt', line.offset, line.problem ?? 'damaged record', { raw_base64: line.raw.toString('base64') });
      continue;
    }
    const list = byProject.get(line.record.project_id) ?? [];
    list.push(line);
    byProject.set(line.record.project_id, list);
  }
  // Projects are separate chains: their transactions may run side by side.
  const done = await Promise.all([...byProject].map(([projectId, lines]) => replayProject(ctx, projectId, lines)));
  return done.every(Boolean);
}

/**
 * Replays the lines in [from, to) in chunks of up to `batchMax` lines; within a chunk each project
 * gets one transaction, and chunks go one after another in file order, so each project's order is kept.
 */
export async function replayDlq(
  sql: Sql,
  dlq: DeadLetterQueue,
  from: number,
  to: number,
  batchMax: number,
  hooks: ReplayHooks,
  seen: Set<number>,
): Promise<ReplayProgress> {
  const ctx: Context = { sql, dlq, hooks, seen };
  let offset = from;
  let lines = 0;
  let chunk: DlqLine[] = [];
  const commit = async (): Promise<boolean> => {
    if (!(await replayChunk(ctx, chunk))) return false;
    offset = chunk[chunk.length - 1]!.end;
    lines += chunk.length;
    chunk = [];
    return true;
  };
  for await (const line of dlq.read(from, to)) {
    chunk.push(line);
    if (chunk.length < batchMax) continue;
    if (!(await commit()) || hooks.stopping()) return { offset, lines, reachable: false };
  }
  if (chunk.length > 0 && !(await commit())) return { offset, lines, reachable: false };
  return { offset, lines, reachable: true };
}
