// Project settings: audit detail level, retention, attestation, the plan (rate limit, costs) and
// what the MCP proxy leaves of a tools/list answer (mcp_tools_list).
import type { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import type { projectPatchBody, ProjectSettings } from '../../shared/schemas.js';
import type { Sql, Tx } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { destroyRawKeys } from '../crypto/raw-keys.js';
import { adminEntry, type Actor } from './admin-actions.js';

export type { ProjectSettings };

type Row = Omit<ProjectSettings, 'included_requests' | 'monthly_base_fee_eur' | 'overage_eur_per_1000' | 'created_at' | 'updated_at'> & {
  included_requests: string;
  monthly_base_fee_eur: string;
  overage_eur_per_1000: string;
  created_at: Date;
  updated_at: Date;
};

/** Internal bookkeeping columns of the projects table that are not settings. */
function present(row: Row & { verify_defaults_seeded?: boolean }): ProjectSettings {
  const { verify_defaults_seeded: _internal, ...settings } = row;
  return {
    ...settings,
    included_requests: Number(row.included_requests),
    monthly_base_fee_eur: Number(row.monthly_base_fee_eur),
    overage_eur_per_1000: Number(row.overage_eur_per_1000),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export async function getProject(sql: Sql | Tx, projectId: string): Promise<ProjectSettings> {
  const [row] = await sql<Row[]>`select * from projects where id = ${projectId}`;
  if (!row) throw new GatewayError('not_found');
  return present(row);
}

export type ProjectPatch = z.infer<typeof projectPatchBody>;

export async function updateProject(sql: Sql, projectId: string, patch: ProjectPatch, actor: Actor): Promise<ProjectSettings> {
  const fields = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined));
  if (Object.keys(fields).length === 0)
    throw new GatewayError('validation_error', 'Invalid request: body: give at least one setting to change');
  return sql.begin(async (tx) => {
    const before = await getProject(tx, projectId);
    const [row] = await tx<Row[]>`
      update projects set ${tx(fields)}, updated_at = now() where id = ${projectId} returning *`;
    const changed = Object.fromEntries(Object.keys(fields).map((k) => [k, { from: before[k as keyof ProjectSettings], to: fields[k] }]));
    // Raw originals are kept only while the level is full: leaving it shreds them (raw-keys.ts).
    const leavesFull =
      before.audit_detail_level === 'full' && fields.audit_detail_level !== undefined && fields.audit_detail_level !== 'full';
    const rawKeysDestroyed = leavesFull ? await destroyRawKeys(tx, projectId) : 0;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'project.settings.update',
        activity: 'update',
        targetType: 'project',
        targetId: projectId,
        details: leavesFull ? { changed, raw_keys_destroyed: rawKeysDestroyed } : { changed },
      }),
    ]);
    return present(row!);
  });
}
