// How many approval requests one caller may open. X-Agent-Id proves nothing (any key of the
// project may send any agent id), so every count is taken within the credential that makes the call:
//   - open requests of the credential, anonymous calls and every agent id it names included
//     (GATEWAY_MAX_PENDING_APPROVALS_PER_CREDENTIAL);
//   - open requests of the credential naming this agent (GATEWAY_MAX_PENDING_APPROVALS_PER_AGENT):
//     an agent's limit counts only the requests made by the credential now calling, so another key
//     that names the agent fills its own budget and never locks the agent out;
//   - requests the credential opened in the last 60 s, whatever became of them
//     (GATEWAY_APPROVAL_REQUESTS_PER_MINUTE), a sliding window read from the approvals themselves, so
//     every daemon on the database counts the same rows.
// held-call.ts counts under a per-credential advisory lock, so concurrent held calls cannot overshoot.
import { assertDatabaseUp } from '../db/availability.js';
import type { Sql, Tx } from '../db/connect.js';

export const WINDOW_SECONDS = 60;

export interface OpenCounts {
  readonly forCredential: number;
  /** Open requests of the credential naming the call's agent (0 for an anonymous call). */
  readonly forAgent: number;
  readonly lastMinute: number;
  /** Seconds until the oldest request of the window leaves it (0 when the window is empty). */
  readonly windowFreesIn: number;
}

export interface ApprovalLimits {
  readonly perAgent: number;
  readonly perCredential: number;
  readonly perMinute: number;
}

export type OverLimit =
  | { readonly reason: 'PENDING_APPROVALS_LIMIT'; readonly data: Readonly<Record<string, unknown>> }
  | { readonly reason: 'APPROVAL_RATE_LIMITED'; readonly data: Readonly<Record<string, unknown>> };

/** The first limit a new request would pass, or null: the agent's, the credential's, then the rate. */
export function overLimit(c: OpenCounts, l: ApprovalLimits, who: { credentialId: string; agentId: string | null }): OverLimit | null {
  if (who.agentId !== null && c.forAgent >= l.perAgent) {
    return {
      reason: 'PENDING_APPROVALS_LIMIT',
      data: { scope: 'agent', agent_id: who.agentId, credential_id: who.credentialId, limit: l.perAgent },
    };
  }
  if (c.forCredential >= l.perCredential) {
    return {
      reason: 'PENDING_APPROVALS_LIMIT',
      data: { scope: 'credential', agent_id: who.agentId, credential_id: who.credentialId, limit: l.perCredential },
    };
  }
  if (c.lastMinute >= l.perMinute) {
    return {
      reason: 'APPROVAL_RATE_LIMITED',
      data: {
        credential_id: who.credentialId,
        limit: l.perMinute,
        window_seconds: WINDOW_SECONDS,
        retry_after_seconds: Math.max(1, c.windowFreesIn),
      },
    };
  }
  return null;
}

/** The three counts of one credential (and the agent it names), in one read. */
export async function countOpen(sql: Sql | Tx, projectId: string, credentialId: string, agentId: string | null): Promise<OpenCounts> {
  assertDatabaseUp(sql); // no approval without the database: refused at once while it is known down
  const [row] = await sql<{ for_credential: number; for_agent: number; last_minute: number; frees_in: number | null }[]>`
    select
      count(*) filter (where status = 'PENDING' and expires_at > now())::int as for_credential,
      count(*) filter (where status = 'PENDING' and expires_at > now() and agent_id = ${agentId})::int as for_agent,
      count(*) filter (where created_at > now() - ${`${WINDOW_SECONDS} seconds`}::interval)::int as last_minute,
      ceil(extract(epoch from min(created_at) filter (where created_at > now() - ${`${WINDOW_SECONDS} seconds`}::interval)
        + ${`${WINDOW_SECONDS} seconds`}::interval - now()))::int as frees_in
    from approvals
    where project_id = ${projectId} and credential_id = ${credentialId} and kind = 'mcp'
      and (status = 'PENDING' or created_at > now() - ${`${WINDOW_SECONDS} seconds`}::interval)`;
  return {
    forCredential: row!.for_credential,
    forAgent: row!.for_agent,
    lastMinute: row!.last_minute,
    windowFreesIn: row!.frees_in ?? 0,
  };
}
