// What the command center reads besides the counters: the current state of small tables (agents,
// approvals, MCP registry, plan, checkpoints). Each query is bounded by an index or a LIMIT.
import type { Sql } from '../db/connect.js';
import { mcpCounts, type McpCounts } from '../mcp/servers/server-rows.js';
import type { AgentLoad } from '../../shared/command-center-schemas.js';

export interface OpenWork {
  agents_total: number;
  agents_pending: number;
  agents_suspended: number;
  agents_retired: number;
  approvals_open: number;
  approvals_open_mcp: number;
  tools_changed: number;
  servers_pending: number;
  servers_with_findings: number;
}

export interface Plan {
  tier: string;
  included_requests: number;
  monthly_base_fee_eur: number;
  overage_eur_per_1000: number;
}

export interface State {
  readonly work: OpenWork;
  readonly mcp: McpCounts;
  readonly scanFailed: { id: string; name: string }[];
  readonly distribution: AgentLoad[];
  readonly plan: Plan;
  readonly policyActions: Map<string, string>;
  /** Traces in the ledger, and how many of them the latest signed checkpoint covers. */
  readonly ledger: { head: number; covered: number };
}

const DISTRIBUTION_MAX = 100;

async function openWork(sql: Sql, projectId: string): Promise<OpenWork> {
  const [row] = await sql<OpenWork[]>`
    select
      (select count(*) from agents where project_id = ${projectId})::int as agents_total,
      (select count(*) from agents where project_id = ${projectId} and status = 'PENDING_APPROVAL')::int as agents_pending,
      (select count(*) from agents where project_id = ${projectId} and status = 'SUSPENDED')::int as agents_suspended,
      (select count(*) from agents where project_id = ${projectId} and status in ('REVOKED', 'REJECTED'))::int as agents_retired,
      (select count(*) from approvals where project_id = ${projectId} and status = 'PENDING' and expires_at > now())::int as approvals_open,
      (select count(*) from approvals where project_id = ${projectId} and status = 'PENDING' and expires_at > now() and kind = 'mcp')::int as approvals_open_mcp,
      (select count(*) from mcp_tools where project_id = ${projectId} and present
         and approved_hash is not null and approved_hash <> current_fingerprint)::int as tools_changed,
      (select count(*) from mcp_servers where project_id = ${projectId} and status = 'PENDING_APPROVAL')::int as servers_pending,
      (select count(*) from mcp_servers s where s.project_id = ${projectId} and (s.scan_state = 'failed' or exists (
         select 1 from mcp_tools t where t.server_id = s.id and t.present
           and (jsonb_array_length(t.findings) > 0 or (t.approved_hash is not null and t.approved_hash <> t.current_fingerprint)))))::int as servers_with_findings`;
  return row!;
}

async function distribution(sql: Sql, projectId: string): Promise<AgentLoad[]> {
  // requests_today belongs to requests_day (UTC); a counter of an earlier day means none today.
  const rows = await sql<AgentLoad[]>`
    select id, name, case when requests_day = (now() at time zone 'utc')::date then requests_today else 0 end as requests_today
    from agents where project_id = ${projectId} and status not in ('REVOKED', 'REJECTED')
    order by 3 desc, created_at, id limit ${DISTRIBUTION_MAX}`;
  return rows.map((r) => ({ id: r.id, name: r.name, requests_today: Number(r.requests_today) }));
}

async function plan(sql: Sql, projectId: string): Promise<Plan> {
  const [row] = await sql<{ tier: string; included_requests: string; monthly_base_fee_eur: string; overage_eur_per_1000: string }[]>`
    select tier, included_requests, monthly_base_fee_eur, overage_eur_per_1000 from projects where id = ${projectId}`;
  return {
    tier: row?.tier ?? 'team',
    included_requests: Number(row?.included_requests ?? 0),
    monthly_base_fee_eur: Number(row?.monthly_base_fee_eur ?? 0),
    overage_eur_per_1000: Number(row?.overage_eur_per_1000 ?? 0),
  };
}

async function ledger(sql: Sql, projectId: string): Promise<{ head: number; covered: number }> {
  const [row] = await sql<{ head: string | null; covered: string | null }[]>`
    select (select seq from ledger_heads where project_id = ${projectId} and stream = 'traces')::text as head,
           (select max(tree_size) from checkpoints where project_id = ${projectId})::text as covered`;
  return { head: Number(row?.head ?? 0), covered: Number(row?.covered ?? 0) };
}

export async function readState(sql: Sql, projectId: string): Promise<State> {
  const [work, mcp, scanFailed, dist, thePlan, policies, theLedger] = await Promise.all([
    openWork(sql, projectId),
    mcpCounts(sql, projectId),
    sql<{ id: string; name: string }[]>`
      select id, name from mcp_servers where project_id = ${projectId} and scan_state = 'failed' order by name, id limit 20`,
    distribution(sql, projectId),
    plan(sql, projectId),
    sql<{ name: string; action: string }[]>`select name, action from verify_policies where project_id = ${projectId} limit 1000`,
    ledger(sql, projectId),
  ]);
  return {
    work,
    mcp,
    scanFailed: [...scanFailed],
    distribution: dist,
    plan: thePlan,
    policyActions: new Map(policies.map((p) => [p.name, p.action])),
    ledger: theLedger,
  };
}

export async function agentNames(
  sql: Sql,
  projectId: string,
  ids: readonly string[],
): Promise<Map<string, { name: string; status: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<{ id: string; name: string; status: string }[]>`
    select id, name, status from agents where project_id = ${projectId} and id = any(${sql.array([...ids])}::text[])`;
  return new Map(rows.map((r) => [r.id, { name: r.name, status: r.status }]));
}
