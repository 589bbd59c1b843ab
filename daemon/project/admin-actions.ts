// Admin actions as entries of the tamper-evident admin-action log, mapped to OCSF 1.8 Entity
// Management (class_uid 3004): the activity says what happened to which managed entity.
import type { Principal } from '../../shared/credentials.js';
import type { AdminInput } from '../ledger/streams.js';
import type { Sql } from '../db/connect.js';

export const OCSF_ENTITY_MANAGEMENT = 3004;
export const OCSF_ACTIVITY = {
  create: 1,
  read: 2,
  update: 3,
  delete: 4,
  enable: 8,
  disable: 9,
  activate: 10,
  deactivate: 11,
  suspend: 12,
  resume: 13,
} as const;
export type OcsfActivity = keyof typeof OCSF_ACTIVITY;

export interface AdminAction {
  readonly action: string;
  readonly activity: OcsfActivity;
  readonly targetType: string;
  readonly targetId: string | null;
  readonly details?: Record<string, unknown>;
}

export interface Actor {
  readonly principal: Principal | null;
  readonly requestId: string | null;
}

export const SYSTEM_ACTOR: Actor = { principal: null, requestId: null };

/** Who acted, as records name them: the user id of a user token, else the credential's name, else system. */
export function actorLabel(actor: Actor): string {
  return actor.principal?.userId ?? actor.principal?.name ?? 'system';
}

export function adminEntry(actor: Actor, action: AdminAction): AdminInput {
  const p = actor.principal;
  return {
    action: action.action,
    actorKind: p === null ? 'system' : p.subject ? 'oidc' : p.kind === 'user_token' ? 'user' : p.kind,
    actorId: actorLabel(actor),
    credentialId: p?.credentialId ?? null,
    targetType: action.targetType,
    targetId: action.targetId,
    ocsfClassUid: OCSF_ENTITY_MANAGEMENT,
    ocsfActivityId: OCSF_ACTIVITY[action.activity],
    requestId: actor.requestId,
    details: action.details ?? {},
  };
}

const ACTIVITY_NAME = Object.fromEntries(Object.entries(OCSF_ACTIVITY).map(([k, v]) => [v, k[0]!.toUpperCase() + k.slice(1)]));

/** One stored admin-log row as an OCSF 1.8 Entity Management event, for SIEM export. */
export function toOcsf(row: Record<string, unknown>): Record<string, unknown> {
  const activityId = Number(row.ocsf_activity_id);
  const activityName = ACTIVITY_NAME[activityId] ?? 'Other';
  return {
    class_uid: OCSF_ENTITY_MANAGEMENT,
    class_name: 'Entity Management',
    category_uid: 3,
    category_name: 'Identity & Access Management',
    activity_id: activityId,
    activity_name: activityName,
    type_uid: OCSF_ENTITY_MANAGEMENT * 100 + activityId,
    type_name: `Entity Management: ${activityName}`,
    severity_id: 1,
    severity: 'Informational',
    status_id: 1,
    status: 'Success',
    time: new Date(String(row.created_at)).getTime(),
    message: String(row.action),
    metadata: {
      version: '1.8.0',
      product: { name: 'governance-gateway', vendor_name: 'governance-gateway' },
      uid: row.id,
      log_name: 'admin_audit',
      tenant_uid: row.project_id,
      correlation_uid: row.request_id,
      sequence: Number(row.sequence_num),
    },
    actor: { user: { uid: row.actor_id, type: String(row.actor_kind) } },
    entity: { uid: row.target_id, type: row.target_type, type_id: 99, data: row.details },
    unmapped: { integrity_hash: row.integrity_hash, prev_hash: row.prev_hash, chain: `admin_audit/${String(row.project_id)}` },
  };
}

/** A page of a project's admin log in sequence order, as the API lists it: stored rows, or OCSF events. */
export async function readAdminLog(
  sql: Sql,
  projectId: string,
  page: { after: number; limit: number; format: 'json' | 'ocsf' },
): Promise<Record<string, unknown>[]> {
  const rows = await sql<Record<string, unknown>[]>`
    select * from admin_log where project_id = ${projectId} and sequence_num > ${page.after}
    order by sequence_num limit ${page.limit}`;
  return rows.map((row) =>
    page.format === 'ocsf'
      ? toOcsf(row)
      : { ...row, sequence_num: Number(row.sequence_num), created_at: (row.created_at as Date).toISOString() },
  );
}
