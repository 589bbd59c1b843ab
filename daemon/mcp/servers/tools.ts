// A server's tools as GET /mcp/servers/{id}/tools shows them. matches_approved: null = never
// admitted, true = admitted and unchanged (the current fingerprint equals the recorded one),
// false = changed since admission (blocked until re-admitted). policy_action is the effective
// server-wide rule (null: no rule, calls are held for approval). proposed_rule and its source are
// shown only while the tool waits for admission (waitingForAdmission); the scan keeps them stored.
// The list is oldest first: by first_seen_at (each new tool of a scan takes its own insert's clock
// reading, so one scan's tools keep the upstream's listing order, migration 00016), then id.
// admitted_definition is what was admitted ({ title, description, input_schema, output_schema,
// annotations }, migrations 00023 and 00027: one admitted before 00027 has no output_schema key), for
// people to compare with the current one; null when never admitted or admitted before it was
// recorded. The fingerprint alone decides.
import type { Rule } from '../../../shared/agent-schemas.js';
import type { PoisoningFindingView, ToolView } from '../../../shared/tool-view.js';
import type { Sql, Tx } from '../../db/connect.js';
import { strictestOf } from '../rules/effective-rule.js';

export interface ToolRow {
  id: string;
  server_id: string;
  name: string;
  title: string | null;
  description: string | null;
  input_schema: unknown;
  /** Null when the tool declares none, or no scan has read it since migration 00027. */
  output_schema: unknown;
  annotations: unknown;
  current_fingerprint: string;
  description_hash: string;
  risk_level: string;
  category: string;
  action: string;
  proposed_rule: string | null;
  proposed_rule_source: string | null;
  findings: unknown[];
  present: boolean;
  approved_hash: string | null;
  approved_at: Date | null;
  approved_by: string | null;
  admitted_definition: unknown;
  is_auto_generated: boolean;
  first_seen_at: Date;
  last_seen_at: Date;
  server_wide?: Rule[] | null;
}

export function matchesApproved(t: Pick<ToolRow, 'approved_hash' | 'current_fingerprint'>): boolean | null {
  if (t.approved_hash === null) return null;
  return t.approved_hash === t.current_fingerprint;
}

/** Still listed by the last scan and not admitted as it is now: never admitted, or changed since. */
export function waitingForAdmission(t: Pick<ToolRow, 'present' | 'approved_hash' | 'current_fingerprint'>): boolean {
  return t.present && matchesApproved(t) !== true;
}

export function presentTool(t: ToolRow): ToolView {
  const waiting = waitingForAdmission(t);
  return {
    id: t.id,
    server_id: t.server_id,
    name: t.name,
    title: t.title,
    description: t.description,
    input_schema: t.input_schema,
    output_schema: t.output_schema ?? null,
    annotations: t.annotations,
    risk_level: t.risk_level,
    category: t.category,
    action: t.action,
    description_hash: t.description_hash,
    policy_action: strictestOf(t.server_wide ?? []),
    is_auto_generated: t.is_auto_generated,
    matches_approved: matchesApproved(t),
    approved_hash: t.approved_hash,
    approved_at: t.approved_at?.toISOString() ?? null,
    admitted_definition: (t.admitted_definition as ToolView['admitted_definition']) ?? null,
    current_fingerprint: t.current_fingerprint,
    proposed_rule: waiting ? t.proposed_rule : null,
    proposed_rule_source: waiting ? t.proposed_rule_source : null,
    poisoning_findings: t.findings as PoisoningFindingView[],
    present: t.present,
    first_seen_at: t.first_seen_at.toISOString(),
    last_seen_at: t.last_seen_at.toISOString(),
  };
}

export async function listTools(sql: Sql | Tx, serverId: string): Promise<ToolView[]> {
  const rows = await sql<ToolRow[]>`
    select t.*, (select array_agg(p.action) from mcp_policies p where p.mcp_tool_id = t.id and p.agent_id is null) as server_wide
    from mcp_tools t where t.server_id = ${serverId} order by t.first_seen_at, t.id limit 1000`;
  return rows.map(presentTool);
}
