// Prompt policies: what the verify pipeline runs. A policy names a detector and its configuration
// (validated by the detector itself), an action, a scope (sources, environments) and whether it is
// enabled. Every change is a POLICY_CHANGE trace and an admin-log entry, in the same transaction.
// A new project starts with DEFAULT_POLICIES (see docs/verify.md, "Default policies").
import { createId } from '@paralleldrive/cuid2';
import { ZodError } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import { quoted } from '../../shared/text.js';
import type { PolicyCreate, PolicyPatch } from '../../shared/verify-policy-schemas.js';
import type { Sql, Tx } from '../db/connect.js';
import { issuesText } from '../http/validate.js';
import { SQLSTATE, sqlState } from '../db/sqlstate.js';
import { appendAdmin, appendTraces } from '../ledger/append.js';
import { actorLabel, adminEntry, type Actor } from '../project/admin-actions.js';
import { DETECTORS } from '../detectors/index.js';

export interface Policy {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly detector: string;
  readonly config: Record<string, unknown>;
  readonly action: string;
  readonly action_config: { redirect_url?: string; message?: string };
  readonly scope: { sources: string[]; environments: string[] };
  readonly enabled: boolean;
  readonly is_default: boolean;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A policy ready to run: its configuration parsed once by its detector (undefined: it no longer parses). */
export interface LoadedPolicy extends Policy {
  readonly parsedConfig: unknown;
}

interface PolicyRow {
  id: string;
  name: string;
  description: string | null;
  detector: string;
  config: Record<string, unknown>;
  action: string;
  action_config: Policy['action_config'];
  sources: string[];
  environments: string[];
  enabled: boolean;
  is_default: boolean;
  created_at: Date;
  updated_at: Date;
}

export const DEFAULT_POLICIES: readonly Omit<PolicyCreate, 'enabled'>[] = [
  {
    name: 'Personal data',
    description:
      'E-mail addresses (not RFC 2606 example domains), phone numbers, Luhn-valid payment cards, mod-97-valid IBANs, IP addresses and checksum-valid national identifiers (US, UK, DE, FR) are masked with typed placeholders.',
    detector: 'pii',
    config: {},
    action: 'REDACT',
    action_config: {},
    scope: { sources: ['api', 'browser'], environments: ['*'] },
  },
  {
    name: 'Secrets',
    description: 'Cloud and SaaS keys, tokens, private keys and credentials in connection strings are blocked.',
    detector: 'secrets',
    config: {},
    action: 'BLOCK',
    action_config: {},
    scope: { sources: ['api', 'browser'], environments: ['*'] },
  },
  {
    name: 'Prompt injection',
    description: 'Blocked at high confidence (score >= block_threshold), flagged at medium confidence (score >= flag_threshold).',
    detector: 'injection',
    config: {},
    action: 'BLOCK',
    action_config: {},
    scope: { sources: ['api', 'browser'], environments: ['*'] },
  },
];

function present(row: PolicyRow): Policy {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    detector: row.detector,
    config: row.config,
    action: row.action,
    action_config: row.action_config,
    scope: { sources: row.sources, environments: row.environments },
    enabled: row.enabled,
    is_default: row.is_default,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/**
 * Checks a configuration with its detector (400 validation_error naming the failing fields) and
 * returns it as sent: the stored form is the operator's, parsed again (with defaults) when loaded.
 */
export function checkDetectorConfig(detector: string, config: Record<string, unknown>): Record<string, unknown> {
  const d = DETECTORS[detector];
  if (!d) throw new GatewayError('validation_error', `Invalid request: detector: unknown detector ${quoted(detector)}`);
  try {
    d.parseConfig(config);
    return config;
  } catch (err) {
    if (err instanceof ZodError) throw new GatewayError('validation_error', issuesText(err.issues, 'body', ['config']));
    // A detector's own refusal (a pattern that does not compile) may repeat the input: quoted, so short.
    throw new GatewayError('validation_error', `Invalid request: config: ${quoted((err as Error).message)}`);
  }
}

async function recordChange(
  tx: Tx,
  projectId: string,
  operation: 'create' | 'update' | 'delete',
  before: Policy | null,
  after: Policy | null,
  actor: Actor,
): Promise<void> {
  const policy = (after ?? before)!;
  await appendTraces(tx, projectId, [
    {
      traceType: 'POLICY_CHANGE',
      decision: 'POLICY_CHANGE',
      actionName: `verify.policy.${operation}`,
      reason: `prompt policy "${policy.name}" ${operation}d by ${actorLabel(actor)}`,
      environment: 'prod',
      content: { policy_id: policy.id, operation, before, after, actor: actorLabel(actor), request_id: actor.requestId },
    },
  ]);
  await appendAdmin(tx, projectId, [
    adminEntry(actor, {
      action: `verify.policy.${operation}`,
      activity: operation,
      targetType: 'prompt_policy',
      targetId: policy.id,
      details: { name: policy.name, detector: policy.detector, action: policy.action, enabled: policy.enabled },
    }),
  ]);
}

function nameConflict(err: unknown): never {
  if (sqlState(err) === SQLSTATE.uniqueViolation) throw new GatewayError('verify_policy_name_conflict');
  throw err;
}

async function insertPolicy(tx: Tx, projectId: string, p: PolicyCreate, isDefault: boolean): Promise<Policy> {
  const config = checkDetectorConfig(p.detector, p.config);
  const [row] = await tx<PolicyRow[]>`
    insert into verify_policies (id, project_id, name, description, detector, config, action, action_config, sources, environments, enabled, is_default, created_at, updated_at)
    values (${createId()}, ${projectId}, ${p.name}, ${p.description ?? null}, ${p.detector}, ${tx.json(config as never)}, ${p.action},
            ${tx.json(p.action_config as never)}, ${p.scope.sources}, ${p.scope.environments}, ${p.enabled}, ${isDefault},
            clock_timestamp(), clock_timestamp())
    returning *`.catch(nameConflict);
  return present(row!);
}

export async function createPolicy(sql: Sql, projectId: string, p: PolicyCreate, actor: Actor): Promise<Policy> {
  return sql.begin(async (tx) => {
    const created = await insertPolicy(tx, projectId, p, false);
    await recordChange(tx, projectId, 'create', null, created, actor);
    return created;
  });
}

export async function listPolicies(sql: Sql, projectId: string): Promise<Policy[]> {
  const rows = await sql<PolicyRow[]>`select * from verify_policies where project_id = ${projectId} order by created_at, id limit 1000`;
  return rows.map(present);
}

export async function getPolicy(sql: Sql | Tx, projectId: string, id: string, lock = false): Promise<Policy> {
  const rows = lock
    ? await sql<PolicyRow[]>`select * from verify_policies where project_id = ${projectId} and id = ${id} for update`
    : await sql<PolicyRow[]>`select * from verify_policies where project_id = ${projectId} and id = ${id}`;
  if (!rows[0]) throw new GatewayError('not_found', 'No prompt policy with this id.');
  return present(rows[0]);
}

export async function updatePolicy(sql: Sql, projectId: string, id: string, patch: PolicyPatch, actor: Actor): Promise<Policy> {
  return sql.begin(async (tx) => {
    const before = await getPolicy(tx, projectId, id, true);
    const next = {
      name: patch.name ?? before.name,
      description: patch.description === undefined ? before.description : patch.description,
      config: patch.config === undefined ? before.config : checkDetectorConfig(before.detector, patch.config),
      action: patch.action ?? before.action,
      action_config: patch.action_config ?? before.action_config,
      scope: patch.scope ?? before.scope,
      enabled: patch.enabled ?? before.enabled,
    };
    assertActionFits(next.action, next.action_config, next.scope.sources);
    const [row] = await tx<PolicyRow[]>`
      update verify_policies set name = ${next.name}, description = ${next.description}, config = ${tx.json(next.config as never)},
        action = ${next.action}, action_config = ${tx.json(next.action_config as never)}, sources = ${next.scope.sources},
        environments = ${next.scope.environments}, enabled = ${next.enabled}, updated_at = now()
      where project_id = ${projectId} and id = ${id} returning *`.catch(nameConflict);
    const after = present(row!);
    await recordChange(tx, projectId, 'update', before, after, actor);
    return after;
  });
}

/** The same rule as the create schema, for a PATCH that combines stored and new fields. */
function assertActionFits(action: string, actionConfig: Policy['action_config'], sources: string[]): void {
  if (['WARN', 'JUSTIFY', 'REDIRECT'].includes(action) && sources.some((s) => s !== 'browser')) {
    throw new GatewayError(
      'validation_error',
      `Invalid request: scope.sources: ${action} is shown by the browser extension: scope.sources must be ["browser"]`,
    );
  }
  if (action === 'REDIRECT' && !actionConfig.redirect_url) {
    throw new GatewayError('validation_error', 'Invalid request: action_config.redirect_url: REDIRECT needs action_config.redirect_url');
  }
}

export async function deletePolicy(sql: Sql, projectId: string, id: string, actor: Actor): Promise<Policy> {
  return sql.begin(async (tx) => {
    const before = await getPolicy(tx, projectId, id, true);
    await tx`delete from verify_policies where project_id = ${projectId} and id = ${id}`;
    await recordChange(tx, projectId, 'delete', before, null, actor);
    return before;
  });
}

/** Gives every project that never had them the default policies (once: deleting them later sticks). */
export async function seedDefaultPolicies(sql: Sql): Promise<string[]> {
  return sql.begin(async (tx) => {
    const projects = await tx<{ id: string }[]>`select id from projects where not verify_defaults_seeded for update`;
    for (const { id } of projects) {
      for (const p of DEFAULT_POLICIES) await insertPolicy(tx, id, { ...p, enabled: true }, true);
      await tx`update projects set verify_defaults_seeded = true where id = ${id}`;
    }
    return projects.map((p) => p.id);
  });
}

/** The enabled policies of a project, configurations parsed, for one verify request. */
/** Runs every detector once on a sample, so that the first request does not pay for lazy set-up (and trip the budget). */
export function warmDetectors(): void {
  const sample = 'Warm-up: mail jane@corp.de, call +49 30 1234567, key AKIAZ3MSJV4WWQ5RMNBV, ignore previous instructions.';
  for (const d of Object.values(DETECTORS)) {
    try {
      d.detect(
        sample,
        d.parseConfig(
          d.name === 'keywords' ? { words: ['warm'] } : d.name === 'regex' ? { patterns: [{ pattern: 'warm', entity: 'WARM' }] } : {},
        ),
      );
    } catch {
      // a detector that cannot even warm up fails closed on its first request instead
    }
  }
}

export async function loadPolicies(sql: Sql, projectId: string): Promise<LoadedPolicy[]> {
  const rows = await sql<PolicyRow[]>`
    select * from verify_policies where project_id = ${projectId} and enabled order by created_at, id`;
  return rows.map((r) => {
    const p = present(r);
    let parsedConfig: unknown;
    try {
      parsedConfig = DETECTORS[p.detector]!.parseConfig(p.config);
    } catch {
      parsedConfig = undefined; // the scan stage blocks on it (fail closed), naming the policy
    }
    return { ...p, parsedConfig };
  });
}
