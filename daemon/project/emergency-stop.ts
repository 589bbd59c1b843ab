// The project emergency stop. Setting it refuses every project key on every path (daemon/http/auth.ts
// reads the state on each request, so every daemon sees a set or lift at once); user tokens keep
// reads and recovery. It changes no agent, server or rule status. Work that must end with the stop
// (open approvals) registers a hook that runs inside the same transaction as the set.
import { GatewayError } from '../../shared/errors.js';
import type { Sql, Tx } from '../db/connect.js';
import { appendAdmin } from '../ledger/append.js';
import { emitEvent } from '../notifications/emit.js';
import { stopActivated, stopLifted } from '../notifications/events.js';
import { actorLabel, adminEntry, type Actor } from './admin-actions.js';

export interface StopState {
  active: boolean;
  reason: string | null;
  activated_at: string | null;
  activated_by: string | null;
}

/** Runs in the set transaction; returns a summary recorded in the admin-log entry (e.g. approvals ended). */
export type StopSetHook = (tx: Tx, projectId: string) => Promise<Record<string, unknown>>;

const setHooks: StopSetHook[] = [];

/** Where "open approvals end" plugs in: the approvals module registers its hook at boot. */
export function onStopSet(hook: StopSetHook): void {
  setHooks.push(hook);
}

/** Runs after the set has committed: work outside the database that ends with the stop (stdio server processes). */
export type StopAfterHook = (projectId: string) => Promise<void>;

const afterHooks = new Set<StopAfterHook>();

/** Registers `hook` for every later activation; returns its removal (a daemon removes its own at close). */
export function afterStopSet(hook: StopAfterHook): () => void {
  afterHooks.add(hook);
  return () => afterHooks.delete(hook);
}

interface Row {
  active: boolean;
  reason: string | null;
  activated_at: Date | null;
  activated_by: string | null;
}

function present(row: Row | undefined): StopState {
  if (!row?.active) return { active: false, reason: null, activated_at: null, activated_by: null };
  return { active: true, reason: row.reason, activated_at: row.activated_at?.toISOString() ?? null, activated_by: row.activated_by };
}

export async function getStop(sql: Sql, projectId: string): Promise<StopState> {
  const [row] = await sql<Row[]>`select active, reason, activated_at, activated_by from project_stops where project_id = ${projectId}`;
  return present(row);
}

async function lockStop(tx: Tx, projectId: string): Promise<Row> {
  await tx`insert into project_stops (project_id) values (${projectId}) on conflict do nothing`;
  const [row] = await tx<
    Row[]
  >`select active, reason, activated_at, activated_by from project_stops where project_id = ${projectId} for update`;
  return row!;
}

/** The activation's answer: the stop, and what the set hooks did (approvals_ended: open approvals it cancelled). */
export async function activateStop(
  sql: Sql,
  projectId: string,
  reason: string | null,
  actor: Actor,
): Promise<StopState & Record<string, unknown>> {
  const answer = await sql.begin(async (tx) => {
    const current = await lockStop(tx, projectId);
    if (current.active) throw new GatewayError('project_emergency_stop_already_active');
    const [row] = await tx<Row[]>`
      update project_stops set active = true, reason = ${reason}, activated_at = now(), activated_by = ${actorLabel(actor)},
        lifted_at = null, lifted_by = null
      where project_id = ${projectId} returning active, reason, activated_at, activated_by`;
    const effects: Record<string, unknown> = {};
    for (const hook of setHooks) Object.assign(effects, await hook(tx, projectId));
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'project.emergency_stop.activate',
        activity: 'suspend',
        targetType: 'project',
        targetId: projectId,
        details: { reason, ...effects },
      }),
    ]);
    await emitEvent(tx, projectId, 'project.emergency_stop.activated', stopActivated({ ...present(row), ...effects }));
    return { ...present(row), ...effects };
  });
  for (const hook of afterHooks) await hook(projectId);
  return answer;
}

export async function liftStop(
  sql: Sql,
  projectId: string,
  reason: string | null,
  actor: Actor,
): Promise<StopState & { lifted_at: string }> {
  return sql.begin(async (tx) => {
    const current = await lockStop(tx, projectId);
    if (!current.active) throw new GatewayError('project_emergency_stop_not_active');
    const [row] = await tx<{ lifted_at: Date }[]>`
      update project_stops set active = false, lifted_at = now(), lifted_by = ${actorLabel(actor)}
      where project_id = ${projectId} returning lifted_at`;
    await appendAdmin(tx, projectId, [
      adminEntry(actor, {
        action: 'project.emergency_stop.lift',
        activity: 'resume',
        targetType: 'project',
        targetId: projectId,
        details: { reason, was_activated_at: current.activated_at?.toISOString() ?? null, was_reason: current.reason },
      }),
    ]);
    await emitEvent(tx, projectId, 'project.emergency_stop.lifted', stopLifted(reason, actorLabel(actor), row!.lifted_at));
    return { ...present(undefined), lifted_at: row!.lifted_at.toISOString() };
  });
}
