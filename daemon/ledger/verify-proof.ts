// POST /api/v1/verify-proof: the proof bundle of one trace and the verdict on it. The checks run
// in this order and the first failure is the reason:
//
//   integrity_hash_mismatch       the stored fields no longer hash to integrity_hash
//   content_hash_mismatch         retained content no longer matches its committed hash
//   prev_link_broken              prev_hash is not the previous entry's integrity_hash (or it is missing)
//   next_link_broken              the next entry does not point back at this one
//   checkpoint_signature_invalid  the latest checkpoint's signature or statement is wrong
//   inclusion_proof_invalid       the trace is not in the tree the checkpoint signed
//
// The bundle-only checks (shared/proof-check.ts) are the ones a client can redo offline.
import { contentHash, GENESIS_HASH } from '../../shared/ledger-hash.js';
import { checkBundle, type CheckResult, type ProofBundle } from '../../shared/proof-check.js';
import { verifierKey } from '../../shared/signed-note.js';
import type { CheckpointKey } from '../crypto/checkpoint-key.js';
import type { Sql } from '../db/connect.js';
import { latestCheckpoint } from './checkpoints.js';
import { SubtreeReader } from './merkle-store.js';
import { headerOfRow } from './streams.js';

export interface ProofReport extends ProofBundle {
  readonly intact: boolean;
  readonly reason: string | null;
  readonly detail: string | null;
  readonly content_available: boolean;
  readonly checks: Record<string, CheckResult>;
}

interface Neighbour { sequence_num: string; integrity_hash: string; prev_hash: string }

/** Null when the project has no such trace. */
export async function verifyProof(sql: Sql, key: CheckpointKey, projectId: string, traceId: string): Promise<ProofReport | null> {
  const [row] = await sql<Record<string, unknown>[]>`select * from traces where project_id = ${projectId} and id = ${traceId}`;
  if (!row) return null;
  const seq = Number(row.sequence_num);
  const [content] = await sql<{ salt: Buffer; body: unknown }[]>`select salt, body from trace_content where trace_id = ${traceId}`;
  const neighbours = await sql<Neighbour[]>`
    select sequence_num, integrity_hash, prev_hash from traces
    where project_id = ${projectId} and sequence_num in (${seq - 1}, ${seq + 1})`;
  const prev = neighbours.find((n) => Number(n.sequence_num) === seq - 1);
  const next = neighbours.find((n) => Number(n.sequence_num) === seq + 1);

  const checkpoint = await latestCheckpoint(sql, projectId);
  const covered = checkpoint !== null && checkpoint.tree_size >= seq;
  // Nodes or leaves the path needs can only be missing if rows were removed behind the triggers'
  // back; the empty path then fails the inclusion check rather than the request.
  const path = covered ? await new SubtreeReader(sql, projectId).path(seq - 1, 0, checkpoint.tree_size).catch(() => []) : [];
  const bundle: ProofBundle = {
    trace_id: traceId,
    project_id: projectId,
    sequence_num: seq,
    integrity_hash: String(row.integrity_hash),
    prev_hash: String(row.prev_hash),
    content_hash: String(row.content_hash),
    header: headerOfRow(row),
    merkle: covered ? {
      algorithm: 'rfc9162-sha256',
      leaf_index: seq - 1,
      tree_size: checkpoint.tree_size,
      inclusion_path: path.map((h) => h.toString('base64')),
      root: checkpoint.root.toString('base64'),
      checkpoint: checkpoint.note,
      checkpoint_created_at: checkpoint.created_at.toISOString(),
      vkey: verifierKey(key),
    } : null,
  };

  const offline = checkBundle(bundle);
  const checks: Record<string, CheckResult> = {
    integrity_hash: offline.checks.integrity_hash,
    content_hash: content ? 'ok' : 'not_checked',
    prev_link: 'ok',
    next_link: next ? 'ok' : 'not_checked',
    checkpoint_signature: offline.checks.checkpoint_signature,
    inclusion: offline.checks.inclusion,
  };
  const failures: [string, string, string][] = [];
  if (offline.reason === 'integrity_hash_mismatch') failures.push(['integrity_hash', offline.reason, offline.detail!]);
  if (content && contentHash(content.salt, content.body) !== bundle.content_hash) {
    failures.push(['content_hash', 'content_hash_mismatch', 'the retained content does not match content_hash']);
  }
  const expectedPrev = seq === 1 ? GENESIS_HASH : prev?.integrity_hash;
  if (expectedPrev === undefined) failures.push(['prev_link', 'prev_link_broken', `entry ${seq - 1} is missing`]);
  else if (expectedPrev !== bundle.prev_hash) failures.push(['prev_link', 'prev_link_broken', `prev_hash is not the integrity_hash of entry ${seq - 1}`]);
  if (next && next.prev_hash !== bundle.integrity_hash) failures.push(['next_link', 'next_link_broken', `entry ${seq + 1} does not point back at this entry`]);
  if (offline.reason && offline.reason !== 'integrity_hash_mismatch') failures.push([offline.reason === 'inclusion_proof_invalid' ? 'inclusion' : 'checkpoint_signature', offline.reason, offline.detail!]);
  for (const [check] of failures) checks[check] = 'failed';

  const first = failures[0];
  return {
    ...bundle,
    intact: first === undefined,
    reason: first?.[1] ?? null,
    detail: first?.[2] ?? offline.detail,
    content_available: content !== undefined,
    checks,
  };
}
