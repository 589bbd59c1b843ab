// From a validated access token's claims to who is calling: the project, the role, the agent and
// the subject (issuer, sub, display name), through the settings' claim paths (config-identity.ts).
// A token naming no project (and no default set) or a malformed claim is refused, never guessed.
import type { JWTPayload } from 'jose';
import { ROLES, type Role, type Subject } from '../../shared/credentials.js';
import type { IdentityConfig } from '../config-identity.js';

export interface TokenIdentity {
  readonly projectId: string;
  /** The highest role the role claim grants; null: none (routes needing a role refuse 403). */
  readonly role: Role | null;
  /** The agent the agent claim names; null: none (or no agent claim configured). */
  readonly agentId: string | null;
  readonly subject: Subject;
}

export type ClaimsVerdict = { ok: true; identity: TokenIdentity } | { ok: false; description: string };

/** The value at a dotted path; also the whole dotted name as one key (`https://example.com/roles`). */
export function claimAt(payload: Record<string, unknown>, path: readonly string[]): unknown {
  if (Object.hasOwn(payload, path.join('.'))) return payload[path.join('.')];
  let at: unknown = payload;
  for (const key of path) {
    if (typeof at !== 'object' || at === null || Array.isArray(at) || !Object.hasOwn(at, key)) return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at;
}

const shortString = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 200;

/** Claim values as a list: one string, a list of strings, or a space-separated string. */
function valuesOf(v: unknown): string[] {
  if (typeof v === 'string') return v.split(/\s+/).filter(Boolean);
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === 'string');
  return [];
}

/** The highest role any value grants: through the group map, or by being a role name itself. */
export function roleOf(values: readonly string[], groupRoles: ReadonlyMap<string, Role>): Role | null {
  let best = -1;
  for (const v of values) {
    const role = groupRoles.get(v) ?? ((ROLES as readonly string[]).includes(v) ? (v as Role) : undefined);
    if (role !== undefined) best = Math.max(best, ROLES.indexOf(role));
  }
  return best < 0 ? null : ROLES[best]!;
}

export function identityOf(payload: JWTPayload, c: IdentityConfig): ClaimsVerdict {
  if (!shortString(payload.sub)) return { ok: false, description: 'the token carries no sub claim' };
  const claimed = claimAt(payload, c.projectClaim);
  if (claimed !== undefined && !shortString(claimed))
    return { ok: false, description: `the ${c.projectClaim.join('.')} claim is not a project id` };
  const projectId = claimed ?? c.defaultProject;
  if (projectId === null) return { ok: false, description: `the token names no project (claim ${c.projectClaim.join('.')})` };
  let agentId: string | null = null;
  if (c.agentClaim !== null) {
    const agent = claimAt(payload, c.agentClaim);
    if (agent !== undefined && !shortString(agent))
      return { ok: false, description: `the ${c.agentClaim.join('.')} claim is not an agent id` };
    agentId = agent ?? null;
  }
  const named = claimAt(payload, c.nameClaim);
  const subject = Object.freeze({ issuer: c.issuer, sub: payload.sub, name: shortString(named) ? named : payload.sub });
  const role = roleOf(valuesOf(claimAt(payload, c.roleClaim)), c.groupRoles);
  return { ok: true, identity: Object.freeze({ projectId, role, agentId, subject }) };
}
