// The identity settings (GATEWAY_OIDC_*): the proxy as an OAuth 2.1 resource server of one issuer.
// Part of config.ts's one schema (spread into it); kept here so each file stays readable. Off when
// GATEWAY_OIDC_ISSUER is unset; daemon/identity/ reads the resulting IdentityConfig.
import { z } from 'zod';
import { ROLES, type Role } from '../shared/credentials.js';

/** An absolute http(s) URL without credentials, query or fragment (an issuer, a resource identifier). */
const plainUrl = (what: string) =>
  z.string().refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'http:' || u.protocol === 'https:') && u.username === '' && u.password === '' && !/[?#]/.test(v);
    } catch {
      return false;
    }
  }, `expected ${what}: an http(s) URL without credentials, query or fragment`);

/** A dotted claim path (`realm_access.roles`, `groups`); a segment is any run of characters but the dot. */
const claimPath = z
  .string()
  .regex(/^[^.\s]+(\.[^.\s]+)*$/, 'expected a claim name or a dotted claim path (realm_access.roles)')
  .transform((v) => Object.freeze(v.split('.')));

const commaItems = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `group=role,group=role`: which role each group (or claim value) grants. */
const groupRoles = z
  .string()
  .default('')
  .transform((v, ctx) => {
    const map = new Map<string, Role>();
    for (const item of commaItems(v)) {
      const cut = item.lastIndexOf('=');
      const role = item.slice(cut + 1).trim() as Role;
      if (cut <= 0 || !ROLES.includes(role)) {
        ctx.addIssue({ code: 'custom', message: `expected group=role pairs (role: ${ROLES.join(', ')}); got "${item}"` });
        return z.NEVER;
      }
      map.set(item.slice(0, cut).trim(), role);
    }
    return map;
  });

/** Signature algorithms a token may use: asymmetric only (an HMAC key would be a shared secret). */
export const ASYMMETRIC_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

const algList = z
  .string()
  .default('RS256,PS256,ES256,EdDSA')
  .transform((v) => commaItems(v))
  .refine(
    (list) => list.length > 0 && list.every((a) => (ASYMMETRIC_ALGS as readonly string[]).includes(a)),
    `expected comma-separated asymmetric algorithms (${ASYMMETRIC_ALGS.join(', ')})`,
  );

const scopeList = z
  .string()
  .default('')
  .transform((v) => commaItems(v).flatMap((s) => s.split(/\s+/)))
  .refine((list) => list.every((s) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)), 'expected scope tokens (RFC 6749 3.3)');

export const identityEnv = {
  GATEWAY_OIDC_ISSUER: plainUrl('the issuer identifier').optional(),
  GATEWAY_OIDC_RESOURCE: plainUrl('the resource identifier').optional(),
  GATEWAY_OIDC_REQUIRED_SCOPES: scopeList,
  GATEWAY_OIDC_ALGORITHMS: algList,
  GATEWAY_OIDC_PROJECT_CLAIM: claimPath.default(['gateway_project']),
  GATEWAY_OIDC_DEFAULT_PROJECT: z
    .string()
    .regex(/^\S{1,200}$/, 'expected a project id')
    .optional(),
  GATEWAY_OIDC_ROLE_CLAIM: claimPath.default(['groups']),
  GATEWAY_OIDC_GROUP_ROLES: groupRoles,
  GATEWAY_OIDC_AGENT_CLAIM: claimPath.optional(),
  GATEWAY_OIDC_NAME_CLAIM: claimPath.default(['name']),
  GATEWAY_OIDC_CLOCK_SKEW_SECONDS: z.coerce.number().int().min(0).max(300).default(30),
  GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
};

type IdentityEnv = z.output<z.ZodObject<typeof identityEnv>>;

export interface IdentityConfig {
  /** The issuer identifier, exactly as its tokens' `iss` and its metadata's `issuer` carry it. */
  readonly issuer: string;
  /** GATEWAY_OIDC_RESOURCE; null: `<public URL>/api/v1/mcp/proxy`, known once listening. */
  readonly resource: string | null;
  readonly requiredScopes: readonly string[];
  readonly algorithms: readonly string[];
  readonly projectClaim: readonly string[];
  /** The project of a token whose project claim is absent; null: such a token is refused. */
  readonly defaultProject: string | null;
  readonly roleClaim: readonly string[];
  /** Claim values (groups) to roles; a value that is a role name itself grants that role. */
  readonly groupRoles: ReadonlyMap<string, Role>;
  /** null: the agent comes from the X-Agent-Id header, as with API keys. */
  readonly agentClaim: readonly string[] | null;
  readonly nameClaim: readonly string[];
  readonly clockSkewSeconds: number;
  /** Least time between two fetches of the issuer's keys (an unknown key id asks for a fetch). */
  readonly jwksRefreshFloorMs: number;
}

export function identityConfigOf(e: IdentityEnv): IdentityConfig | null {
  if (e.GATEWAY_OIDC_ISSUER === undefined) return null;
  return Object.freeze({
    issuer: e.GATEWAY_OIDC_ISSUER,
    resource: e.GATEWAY_OIDC_RESOURCE ?? null,
    requiredScopes: Object.freeze([...e.GATEWAY_OIDC_REQUIRED_SCOPES]),
    algorithms: Object.freeze([...e.GATEWAY_OIDC_ALGORITHMS]),
    projectClaim: e.GATEWAY_OIDC_PROJECT_CLAIM,
    defaultProject: e.GATEWAY_OIDC_DEFAULT_PROJECT ?? null,
    roleClaim: e.GATEWAY_OIDC_ROLE_CLAIM,
    groupRoles: e.GATEWAY_OIDC_GROUP_ROLES,
    agentClaim: e.GATEWAY_OIDC_AGENT_CLAIM ?? null,
    nameClaim: e.GATEWAY_OIDC_NAME_CLAIM,
    clockSkewSeconds: e.GATEWAY_OIDC_CLOCK_SKEW_SECONDS,
    jwksRefreshFloorMs: e.GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS * 1000,
  });
}
