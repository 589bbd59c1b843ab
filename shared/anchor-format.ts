// What an anchor commits to, shared by the daemon's anchor worker and the offline proof checker.
//
// Epoch tree: an RFC 9162 tree (shared/merkle.ts) whose leaves are the bodies of signed checkpoints
// (the text "origin\nsize\nbase64 root\n" that the Ed25519 signature covers, without signature
// lines), one per project, ordered by project id (byte order of the UTF-8 string). The leaf hash is
// SHA-256(0x00 || UTF-8 body), so a checkpoint's origin (which names the project), size and root
// are all committed.
//
// Transaction: a 0-value transaction whose calldata is exactly 44 bytes:
//   "GWA1" (4 ASCII bytes: tag and layout version) || epoch (u64, big-endian) || epoch root (32 bytes).
import { leafHash } from './merkle.js';

export const ANCHOR_TAG = 'GWA1';
export const ANCHOR_CALLDATA_LAYOUT = 'GWA1 | u64be epoch | root32';
export const ANCHOR_CALLDATA_BYTES = 4 + 8 + 32;

export interface AnchorPayload {
  readonly epoch: bigint;
  readonly root: Buffer;
}

/** Calldata of the anchor transaction for one epoch, as 0x-prefixed lower-case hex. */
export function encodeAnchorCalldata(payload: AnchorPayload): `0x${string}` {
  if (payload.epoch <= 0n || payload.epoch >= 2n ** 64n) throw new RangeError('epoch must be a positive u64');
  if (!Buffer.isBuffer(payload.root) || payload.root.length !== 32) throw new RangeError('root must be 32 bytes');
  const out = Buffer.alloc(ANCHOR_CALLDATA_BYTES);
  out.write(ANCHOR_TAG, 0, 'ascii');
  out.writeBigUInt64BE(payload.epoch, 4);
  payload.root.copy(out, 12);
  return `0x${out.toString('hex')}`;
}

/** The epoch and root carried by anchor calldata, or null when it is not a GWA1 anchor. */
export function decodeAnchorCalldata(hex: string): AnchorPayload | null {
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]*$/.test(hex) || hex.length !== 2 + 2 * ANCHOR_CALLDATA_BYTES) return null;
  const bytes = Buffer.from(hex.slice(2), 'hex');
  if (bytes.subarray(0, 4).toString('ascii') !== ANCHOR_TAG) return null;
  const epoch = bytes.readBigUInt64BE(4);
  if (epoch === 0n) return null;
  return { epoch, root: Buffer.from(bytes.subarray(12)) };
}

/** The body of a signed note: the text before the blank line that precedes its signatures. */
export function noteBody(note: string): string | null {
  const split = note.indexOf('\n\n');
  return split < 0 ? null : note.slice(0, split + 1);
}

/** Leaf hash of one checkpoint in an epoch tree, from the checkpoint's body text. */
export function epochLeafHash(checkpointBody: string): Buffer {
  return leafHash(Buffer.from(checkpointBody, 'utf8'));
}

/** Orders epoch leaves: by project id, compared as UTF-8 bytes (not locale order). */
export function compareProjectIds(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export type EpochState = 'PENDING' | 'SUBMITTED' | 'ANCHORED' | 'FAILED';

/** One epoch as GET /api/v1/ledger/anchor and POST /api/v1/ledger/anchor/run answer it. */
export interface EpochJson {
  epoch: number;
  state: EpochState;
  root: string;
  leaf_count: number;
  chain_id: number;
  tx_hash: string | null;
  tx_hashes: string[];
  block_number: number | null;
  block_time: string | null;
  attempts: number;
  last_error: string | null;
  created_at: string;
  submitted_at: string | null;
  anchored_at: string | null;
}
