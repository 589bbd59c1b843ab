// Per-project data keys for raw originals (sql/00013_raw_keys.sql explains the scheme): seal with
// the project's active key, open by the key the value names, destroy every key of a project when
// its audit level leaves `full` (crypto-shredding: the raw originals cannot be read afterwards).
import { randomBytes } from 'node:crypto';
import { createId } from '@paralleldrive/cuid2';
import { GatewayError } from '../../shared/errors.js';
import type { Sql, Tx } from '../db/connect.js';
import { readOrRecall } from '../state-cache/last-known.js';
import { isSealed, KeyMismatchError, SecretBox, type Sealed } from './secret-box.js';

const WRAP_PURPOSE = 'gw.raw.key.v1';

/** A raw original: sealed under the data key `dek`. */
export interface SealedRaw {
  v: 1;
  dek: string;
  sealed: Sealed;
}

export function isSealedRaw(value: unknown): value is SealedRaw {
  const v = value as Partial<SealedRaw> | null;
  return typeof v === 'object' && v !== null && v.v === 1 && typeof v.dek === 'string' && isSealed(v.sealed);
}

/** Unwrapped keys by id; a destroyed key is never in the database again, so entries never go stale. */
const unwrapped = new Map<string, SecretBox>();

function unwrap(master: SecretBox, id: string, wrapped: Sealed): SecretBox {
  let box = unwrapped.get(id);
  if (!box) {
    try {
      box = new SecretBox(Buffer.from(master.open(wrapped, WRAP_PURPOSE), 'base64'));
    } catch (err) {
      if (err instanceof KeyMismatchError) throw new GatewayError('encryption_key_mismatch');
      throw err;
    }
    unwrapped.set(id, box);
  }
  return box;
}

/**
 * The project's active data key, created on first use (one per project: a unique partial index).
 * Once read, it stays usable while the database is unreachable (last-known.ts), so raw originals
 * are still sealed then; a daemon that never read it refuses (503) instead of keeping one unsealed.
 */
async function activeKey(sql: Sql | Tx, master: SecretBox, projectId: string): Promise<{ id: string; box: SecretBox }> {
  for (let attempt = 0; attempt < 2; attempt += 1) {
    const row = await readOrRecall(
      sql,
      `raw-key\u0000${projectId}`,
      async () =>
        (
          await sql<{ id: string; wrapped: Sealed }[]>`
      select id, wrapped from raw_keys where project_id = ${projectId} and destroyed_at is null`
        )[0] ?? null,
      (found) => found !== null,
    );
    if (row) return { id: row.id, box: unwrap(master, row.id, row.wrapped) };
    const wrapped = master.seal(randomBytes(32).toString('base64'), WRAP_PURPOSE);
    await sql`
      insert into raw_keys (id, project_id, wrapped) values (${createId()}, ${projectId}, ${sql.json(wrapped as never)})
      on conflict do nothing`;
  }
  throw new Error('no raw key could be created');
}

export async function sealRaw(sql: Sql | Tx, master: SecretBox, projectId: string, plaintext: string, purpose: string): Promise<SealedRaw> {
  const key = await activeKey(sql, master, projectId);
  return { v: 1, dek: key.id, sealed: key.box.seal(plaintext, purpose) };
}

/**
 * Opens a raw original. Values sealed before per-project keys existed are sealed by the daemon's
 * key directly. A destroyed key means the original was shredded: raw_not_available.
 */
export async function openRaw(sql: Sql | Tx, master: SecretBox, projectId: string, value: unknown, purpose: string): Promise<string> {
  if (isSealed(value)) {
    try {
      return master.open(value, purpose);
    } catch (err) {
      if (err instanceof KeyMismatchError) throw new GatewayError('encryption_key_mismatch');
      throw err;
    }
  }
  if (!isSealedRaw(value)) throw new GatewayError('raw_not_available');
  const [row] = await sql<{ wrapped: Sealed | null }[]>`select wrapped from raw_keys where id = ${value.dek} and project_id = ${projectId}`;
  if (!row?.wrapped) throw new GatewayError('raw_not_available', 'The raw original was destroyed when the audit level left full.');
  return unwrap(master, value.dek, row.wrapped).open(value.sealed, purpose);
}

/** Shreds every data key of the project; returns how many. */
export async function destroyRawKeys(tx: Tx, projectId: string): Promise<number> {
  const rows = await tx`
    update raw_keys set wrapped = null, destroyed_at = now() where project_id = ${projectId} and destroyed_at is null returning id`;
  for (const r of rows) unwrapped.delete(String(r.id));
  return rows.length;
}
