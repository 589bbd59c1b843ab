// POST /api/v1/verify-proof: the proof bundle of one trace and the verdict on it. The checks run
// in this order and the first failure is the reason:
//
//   integrity_hash_mismatch       the stored fields no longer hash to integrity_hash
//   content_hash_mismatch         retained content no longer matches its committed hash
//   prev_link_broken              prev_hash is not the previous entry's integrity_hash (or it is missing)
//   next_link_broken              the next entry does not point back at this one
//   checkpoint_signature_invalid  the checkpoint's signature or statement is wrong
//   inclusion_proof_invalid       the trace is not in the tree the checkpoint signed
//   epoch_inclusion_invalid       the checkpoint is not a leaf of the anchored epoch tree (or the stored
//                                 epoch no longer hashes to the root that was anchored)
//   anchor_calldata_mismatch      the anchor calldata does not carry that epoch and root
//
// The checkpoint is the one an anchored epoch committed to when one covers the trace
// (daemon/anchor/coverage.ts), so the whole chain of proof ends on chain; otherwise the latest.
// anchor_tx (is the transaction on chain, with that calldata, and did it succeed) needs an RPC
// node: the daemon reports it "not_checked" and `gatewayctl traces check-proof --rpc` checks it.
// "pending" (no checkpoint or no anchored epoch yet, anchoring on) is not a failure: intact
// reflects only the checks that ran. The bundle-only checks (shared/proof-check.ts) are the ones a
// client can redo offline.
import { contentHash, GENESIS_HASH } from '../../shared/ledger-hash.js';
import { BUNDLE_STEPS, checkBundle, type BundleVerdict, type CheckResult, type ProofBundle } from '../../shared/proof-check.js';
import { verifierKey } from '../../shared/signed-note.js';
import { readAnchorSections, type AnchorSections } from '../anchor/bundle.js';
import { anchorCovering } from '../anchor/coverage.js';
import { flareFieldsOf } from '../anchor/trace-status.js';
import type { CheckpointKey } from '../crypto/checkpoint-key.js';
import type { Sql } from '../db/connect.js';
import { latestCheckpoint, type StoredCheckpoint } from './checkpoints.js';
import { SubtreeReader } from './merkle-store.js';
import { headerOfRow } from './streams.js';

export interface ProofReport extends ProofBundle {
  readonly intact: boolean;
  readonly reason: string | null;
  readonly detail: string | null;
  readonly content_available: boolean;
  readonly checks: Record<string, CheckResult>;
}

interface Neighbour {
  sequence_num: string;
  integrity_hash: string;
  prev_hash: string;
}
type Failure = [check: string, reason: string, detail: string];

async function checkpointOfSize(sql: Sql, projectId: string, treeSize: number): Promise<StoredCheckpoint | null> {
  const [row] = await sql<StoredCheckpoint[]>`select * from checkpoints where project_id = ${projectId} and tree_size = ${treeSize}`;
  return row ? { ...row, tree_size: Number(row.tree_size) } : null;
}

/** The covering anchor's sections and checkpoint, else the latest checkpoint (null: none covers the trace yet). */
async function proofSources(sql: Sql, projectId: string, seq: number) {
  // flare_status by the traces' own rule (trace-status.ts), read before the coverage: an epoch
  // anchored in between then shows as ANCHORED with its sections, never as ANCHORED without them.
  const flare = (await flareFieldsOf(sql, projectId, [seq]))(seq).flare_status;
  const coverage = await anchorCovering(sql, projectId, seq);
  const anchored: AnchorSections | null = coverage ? await readAnchorSections(sql, coverage) : null;
  const checkpoint = coverage ? await checkpointOfSize(sql, projectId, coverage.treeSize) : await latestCheckpoint(sql, projectId);
  return {
    anchored,
    flare: anchored ? ('ANCHORED' as const) : flare,
    checkpoint: checkpoint !== null && checkpoint.tree_size >= seq ? checkpoint : null,
  };
}

async function buildBundle(
  sql: Sql,
  key: CheckpointKey,
  row: Record<string, unknown>,
): Promise<{ bundle: ProofBundle; rootMatches: boolean }> {
  const projectId = String(row.project_id);
  const seq = Number(row.sequence_num);
  const { anchored, checkpoint, flare } = await proofSources(sql, projectId, seq);
  // Nodes or leaves the path needs can only be missing if rows were removed behind the triggers'
  // back; the empty path then fails the inclusion check rather than the request. The reader
  // proves against any earlier size: every stored node lies inside the tree it was completed in.
  const path = checkpoint ? await new SubtreeReader(sql, projectId).path(seq - 1, 0, checkpoint.tree_size).catch(() => []) : [];
  const bundle: ProofBundle = {
    trace_id: String(row.id),
    project_id: projectId,
    sequence_num: seq,
    integrity_hash: String(row.integrity_hash),
    prev_hash: String(row.prev_hash),
    content_hash: String(row.content_hash),
    header: headerOfRow(row),
    merkle: checkpoint && {
      algorithm: 'rfc9162-sha256',
      leaf_index: seq - 1,
      tree_size: checkpoint.tree_size,
      inclusion_path: path.map((h) => h.toString('base64')),
      root: checkpoint.root.toString('base64'),
      checkpoint: checkpoint.note,
      checkpoint_created_at: checkpoint.created_at.toISOString(),
      vkey: verifierKey(key),
    },
    flare_status: flare,
    epoch: anchored?.epoch ?? null,
    anchor: anchored?.anchor ?? null,
  };
  return { bundle, rootMatches: anchored?.rootMatches ?? true };
}

/** The offline verdict's failure, named by its check; a stored epoch that lost its root says so. */
function offlineFailure(offline: BundleVerdict, rootMatches: boolean): Failure | null {
  if (offline.reason === null) return null;
  const check = BUNDLE_STEPS.find((s) => offline.checks[s] === 'failed')!;
  const detail =
    check === 'epoch_inclusion' && !rootMatches
      ? 'the stored epoch leaves no longer hash to the root that was anchored (changed in the database)'
      : offline.detail!;
  return [check, offline.reason, detail];
}

/** Null when the project has no such trace. */
export async function checkProof(sql: Sql, key: CheckpointKey, projectId: string, traceId: string): Promise<ProofReport | null> {
  const [row] = await sql<Record<string, unknown>[]>`select * from traces where project_id = ${projectId} and id = ${traceId}`;
  if (!row) return null;
  const seq = Number(row.sequence_num);
  const [content] = await sql<{ salt: Buffer; body: unknown }[]>`select salt, body from trace_content where trace_id = ${traceId}`;
  const neighbours = await sql<Neighbour[]>`
    select sequence_num, integrity_hash, prev_hash from traces
    where project_id = ${projectId} and sequence_num in (${seq - 1}, ${seq + 1})`;
  const prev = neighbours.find((n) => Number(n.sequence_num) === seq - 1);
  const next = neighbours.find((n) => Number(n.sequence_num) === seq + 1);
  const { bundle, rootMatches } = await buildBundle(sql, key, row);

  const offline = checkBundle(bundle);
  const checks: Record<string, CheckResult> = {
    integrity_hash: offline.checks.integrity_hash,
    content_hash: content ? 'ok' : 'not_checked',
    prev_link: 'ok',
    next_link: next ? 'ok' : 'not_checked',
    checkpoint_signature: offline.checks.checkpoint_signature,
    inclusion: offline.checks.inclusion,
    epoch_inclusion: offline.checks.epoch_inclusion,
    anchor_calldata: offline.checks.anchor_calldata,
    anchor_tx: bundle.epoch ? 'not_checked' : offline.checks.anchor_calldata === 'pending' ? 'pending' : 'not_checked',
  };
  const failures: Failure[] = [];
  const fromOffline = offlineFailure(offline, rootMatches);
  if (fromOffline?.[0] === 'integrity_hash') failures.push(fromOffline);
  if (content && contentHash(content.salt, content.body) !== bundle.content_hash) {
    failures.push(['content_hash', 'content_hash_mismatch', 'the retained content does not match content_hash']);
  }
  const expectedPrev = seq === 1 ? GENESIS_HASH : prev?.integrity_hash;
  if (expectedPrev === undefined) failures.push(['prev_link', 'prev_link_broken', `entry ${seq - 1} is missing`]);
  else if (expectedPrev !== bundle.prev_hash)
    failures.push(['prev_link', 'prev_link_broken', `prev_hash is not the integrity_hash of entry ${seq - 1}`]);
  if (next && next.prev_hash !== bundle.integrity_hash)
    failures.push(['next_link', 'next_link_broken', `entry ${seq + 1} does not point back at this entry`]);
  if (fromOffline && fromOffline[0] !== 'integrity_hash') failures.push(fromOffline);
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
