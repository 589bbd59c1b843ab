// Marks approvals that passed their expiry undecided as EXPIRED, and says so (approval.expired),
// once: the update takes only rows still PENDING, so of several daemons sweeping at once each row
// is marked, and its event queued, by exactly one. An expired approval was never usable anyway
// (store.ts reads expires_at); the sweep makes the state visible and tells whoever subscribed.
import type { Sql } from '../db/connect.js';
import { emitEvent } from '../notifications/emit.js';
import { approvalExpired } from '../notifications/events.js';

/** Rows marked per pass; a larger backlog is taken by the next passes. */
const SWEEP_BATCH = 500;

interface Expired {
  id: string;
  project_id: string;
  kind: 'verify' | 'mcp';
  trace_id: string | null;
  server_id: string | null;
  tool_name: string | null;
  agent_id: string | null;
  status: string;
  expires_at: Date;
  findings: Record<string, unknown>[] | null;
}

/** One pass; returns how many approvals it marked. */
export async function expireApprovals(sql: Sql): Promise<number> {
  return sql.begin(async (tx) => {
    const rows = await tx<Expired[]>`
      update approvals set status = 'EXPIRED'
      where id in (
        select id from approvals where status = 'PENDING' and expires_at <= now()
        order by expires_at limit ${SWEEP_BATCH} for update skip locked)
      returning id, project_id, kind, trace_id, server_id, tool_name, agent_id, status, expires_at, findings`;
    for (const r of rows) {
      const facts = {
        ...r,
        expires_at: r.expires_at.toISOString(),
        decided_at: null,
        decided_by: null,
        comment: null,
        findings: r.findings ?? [],
      };
      await emitEvent(tx, r.project_id, 'approval.expired', approvalExpired(facts));
    }
    return rows.length;
  });
}
