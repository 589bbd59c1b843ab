// What a person deciding an approval needs to see, beside the request itself: the server's and the
// agent's names, who asked (the key's name; the person, when an access token made the call), and the held call's arguments as its trace keeps them (display-safe: masked by
// traces/at-rest.ts, never the sealed original), with what the content policies found in them.
// Read by GET /approvals and /approvals/{id}, and shown by gatewayctl approvals list | get.
import type { Subject } from '../../shared/credentials.js';
import { GatewayError } from '../../shared/errors.js';
import type { Sql } from '../db/connect.js';
import { getApproval, listOpen, type Approval } from './store.js';

export interface ApprovalView extends Approval {
  readonly server_name: string | null;
  readonly agent_name: string | null;
  /** The name of the key or token whose call opened the request (never its secret). */
  readonly credential_name: string | null;
  /**
   * The person or client the identity provider named, when an access token made the call (as the
   * held call's trace keeps it: issuer, sub, display name); null for an API key's call.
   */
  readonly requested_by_subject: Subject | null;
  /** The held call's arguments as its trace shows them (masked); null for verify requests. */
  readonly arguments: unknown;
}

interface Names {
  id: string;
  server_name: string | null;
  agent_name: string | null;
  credential_name: string | null;
  subject: Subject | null;
  arguments: unknown;
}

async function withNames(sql: Sql, projectId: string, approvals: readonly Approval[]): Promise<ApprovalView[]> {
  if (approvals.length === 0) return [];
  const rows = await sql<Names[]>`
    select a.id, s.name as server_name, g.name as agent_name, k.name as credential_name,
      case when a.kind = 'mcp' then c.body -> 'arguments' end as arguments, c.body -> 'subject' as subject
    from approvals a
      left join mcp_servers s on s.id = a.server_id and s.project_id = a.project_id
      left join agents g on g.id = a.agent_id and g.project_id = a.project_id
      left join credentials k on k.id = a.credential_id and k.project_id = a.project_id
      left join trace_content c on c.trace_id = a.trace_id
    where a.project_id = ${projectId} and a.id in ${sql(approvals.map((a) => a.id))}`;
  const byId = new Map(rows.map((r) => [r.id, r]));
  return approvals.map((a) => {
    const n = byId.get(a.id);
    return {
      ...a,
      server_name: n?.server_name ?? null,
      agent_name: n?.agent_name ?? null,
      credential_name: n?.credential_name ?? null,
      requested_by_subject: subjectOf(n?.subject),
      arguments: n?.arguments ?? null,
    };
  });
}

/** A trace's `subject` as it was written (three strings), or null. */
function subjectOf(v: unknown): Subject | null {
  if (typeof v !== 'object' || v === null) return null;
  const { issuer, sub, name } = v as Record<string, unknown>;
  return typeof issuer === 'string' && typeof sub === 'string' && typeof name === 'string' ? { issuer, sub, name } : null;
}

/** The open requests, oldest first, with names and arguments. */
export async function listOpenViews(sql: Sql, projectId: string): Promise<ApprovalView[]> {
  return withNames(sql, projectId, await listOpen(sql, projectId));
}

/** One request of the project, whatever its state (404 not_found otherwise). */
export async function getApprovalView(sql: Sql, projectId: string, id: string): Promise<ApprovalView> {
  const [view] = await withNames(sql, projectId, [await getApproval(sql, projectId, id)]);
  if (!view) throw new GatewayError('not_found', 'No approval request with this id.');
  return view;
}
