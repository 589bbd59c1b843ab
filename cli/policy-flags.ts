// What the policies prompt commands share: the flags of a prompt policy, how they become the body
// of /api/v1/verify/policies, and which flag a refused body field came from (nested fields such as
// scope.sources map to their own flags, which agent-flags' checkBody cannot name).
import { Flags } from '@oclif/core';
import type { z } from 'zod';
import { POLICY_ACTIONS } from '../shared/verify-policy-schemas.js';
import { parseJsonFlag } from './agent-flags.js';
import { UsageError } from './errors.js';
import { table } from './format.js';
import { safeText } from './trace-output.js';

export interface PromptPolicy {
  id: string;
  name: string;
  description: string | null;
  detector: string;
  config: Record<string, unknown>;
  action: string;
  action_config: { redirect_url?: string; message?: string };
  scope: { sources: string[]; environments: string[] };
  enabled: boolean;
  is_default: boolean;
  created_at: string;
  updated_at: string;
}

/** The flags add and update share; add makes --name, --detector and --action required. */
export const policyFlags = {
  name: Flags.string({ summary: 'Name of the policy, unique in the project.' }),
  description: Flags.string({ summary: 'What the policy is for.' }),
  action: Flags.string({ summary: 'What happens on a finding.', options: [...POLICY_ACTIONS] }),
  'config-json': Flags.string({ summary: 'The detector\'s configuration, a JSON object (e.g. {"words":["payroll"]} for keywords).' }),
  sources: Flags.string({ summary: 'Comma-separated sources it applies to: api, browser (default both).' }),
  environments: Flags.string({ summary: 'Comma-separated environments it applies to, * for all (default *).' }),
  'redirect-url': Flags.string({ summary: 'Where REDIRECT sends the user (http or https URL).' }),
  message: Flags.string({ summary: 'Message the browser extension shows.' }),
};

/** Body path -> the flag that sets it; the longest matching prefix names a refused field. */
const FLAG_OF_PATH: Readonly<Record<string, string>> = {
  config: '--config-json',
  scope: '--sources/--environments',
  'scope.sources': '--sources',
  'scope.environments': '--environments',
  action_config: '--redirect-url/--message',
  'action_config.redirect_url': '--redirect-url',
  'action_config.message': '--message',
  enabled: '--enable/--disable',
};

function flagOfPath(path: readonly PropertyKey[]): string {
  for (let n = path.length; n > 0; n--) {
    const key = path.slice(0, n).map(String).join('.');
    if (FLAG_OF_PATH[key]) return FLAG_OF_PATH[key];
  }
  return path.length === 0 ? 'flags' : `--${String(path[0]).replaceAll('_', '-')}`;
}

/** Checks a body with the daemon's own schema before sending it; a refusal names the flags. */
export function checkPolicyBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new UsageError(result.error.issues.map((i) => `${flagOfPath(i.path)}: ${i.message}`).join('; '));
}

/** `api,browser` -> ['api', 'browser']; an empty item is kept, for the schema to refuse. */
export function listFlag(value: string | undefined): string[] | undefined {
  return value === undefined ? undefined : value.split(',').map((s) => s.trim());
}

/** The body fields the shared flags give, under their API names (config parsed, lists split). */
export function policyFields(flags: {
  name?: string;
  description?: string;
  action?: string;
  'config-json'?: string;
  'redirect-url'?: string;
  message?: string;
}): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (flags.name !== undefined) body.name = flags.name;
  if (flags.description !== undefined) body.description = flags.description;
  if (flags.action !== undefined) body.action = flags.action;
  if (flags['config-json'] !== undefined) body.config = parseJsonFlag('--config-json', flags['config-json']);
  const actionConfig = definedOnly({ redirect_url: flags['redirect-url'], message: flags.message });
  if (Object.keys(actionConfig).length > 0) body.action_config = actionConfig;
  return body;
}

export function definedOnly<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

export function policyTable(policies: readonly PromptPolicy[]): string {
  return table(
    ['ID', 'NAME', 'DETECTOR', 'ACTION', 'SOURCES', 'ENVIRONMENTS', 'ENABLED', 'DEFAULT'],
    policies.map((p) => [
      p.id,
      safeText(p.name, 40),
      p.detector,
      p.action,
      p.scope.sources.join(','),
      safeText(p.scope.environments.join(','), 40),
      p.enabled ? 'yes' : 'no',
      p.is_default ? 'yes' : 'no',
    ]),
  );
}

/** One line naming a policy: id, name, detector -> action, scope, enabled. */
export function policyLine(p: PromptPolicy): string {
  const state = p.enabled ? 'enabled' : 'disabled';
  return `${p.id} "${safeText(p.name)}" (${p.detector} -> ${p.action}, sources ${p.scope.sources.join(',')}, environments ${safeText(p.scope.environments.join(','))}, ${state})`;
}
