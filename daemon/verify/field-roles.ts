// The field-role registry of structured input: for a tool, which of its input fields hold the user's
// own words and which hold data (read by verify's load step, managed through the Admin API).
import type { Sql } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { adminEntry, type Actor } from '../project/admin-actions.js';

export interface FieldRoleRow {
  field: string;
  role: string;
}

export function readFieldRoles(sql: Sql, projectId: string, tool: string): Promise<FieldRoleRow[]> {
  return sql<
    FieldRoleRow[]
  >`select field, role from verify_field_roles where project_id = ${projectId} and tool_name = ${tool} order by field`;
}

/** Replaces a tool's field roles, with its admin-log entry, in one transaction. */
export async function setFieldRoles(
  sql: Sql,
  projectId: string,
  tool: string,
  fields: Record<string, string>,
  actor: Actor,
): Promise<void> {
  await sql.begin(async (tx) => {
    await tx`delete from verify_field_roles where project_id = ${projectId} and tool_name = ${tool}`;
    const rows = Object.entries(fields).map(([field, role]) => ({ project_id: projectId, tool_name: tool, field, role }));
    await tx`insert into verify_field_roles ${tx(rows)}`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'verify.field_roles.set',
        activity: 'update',
        targetType: 'field_roles',
        targetId: tool,
        details: { fields },
      }),
    ]);
  });
}
