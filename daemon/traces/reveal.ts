// Reveal of a trace's raw original: Admin only (route table), only while the project's audit
// detail level is `full`, decrypted from its AES-256-GCM seal, and an admin-log entry per success.
import { GatewayError } from '../../shared/errors.js';
import { openRaw } from '../crypto/raw-keys.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { Sql } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { adminEntry, type Actor } from '../project/admin-actions.js';
import { auditLevel, isTraceId } from './query.js';

/** The AEAD purpose that binds a sealed raw original to this use. */
export const RAW_PURPOSE = 'gw.trace.raw.v1';

export async function revealTrace(
  sql: Sql,
  box: SecretBox,
  projectId: string,
  traceId: string,
  actor: Actor,
): Promise<{ trace_id: string; raw: unknown; revealed_at: string }> {
  if (!isTraceId(traceId)) throw new GatewayError('not_found', 'No trace with this id.');
  return sql.begin(async (tx) => {
    if ((await auditLevel(tx, projectId)) !== 'full') throw new GatewayError('reveal_requires_full_audit');
    const [trace] = await tx<{ id: string; raw: unknown }[]>`
      select t.id, c.body -> 'raw' as raw from traces t left join trace_content c on c.trace_id = t.id
      where t.id = ${traceId} and t.project_id = ${projectId}`;
    if (!trace) throw new GatewayError('not_found', 'No trace with this id.');
    const plaintext = await openRaw(tx, box, projectId, trace.raw, RAW_PURPOSE);
    const [{ now }] = await tx<{ now: Date }[]>`select now()`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'trace.reveal',
        activity: 'read',
        targetType: 'trace',
        targetId: traceId,
        details: {},
      }),
    ]);
    return { trace_id: traceId, raw: JSON.parse(plaintext) as unknown, revealed_at: now.toISOString() };
  });
}
