// Who may call the gateway: the three roles (lowest first), the kinds of credential, and the
// principal a credential resolves to. One definition for the daemon (authentication, the admin
// log, role checks) and gatewayctl (what `keys list` and `keys create` show).
export const ROLES = ['viewer', 'editor', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function roleAtLeast(have: Role | null, need: Role): boolean {
  return have !== null && ROLES.indexOf(have) >= ROLES.indexOf(need);
}

export type CredentialKind = 'project_key' | 'user_token' | 'extension';

export interface Principal {
  readonly credentialId: string;
  readonly projectId: string;
  readonly kind: CredentialKind;
  readonly role: Role | null;
  /** The resolvable identity: the user id of a user token, null for project and extension keys. */
  readonly userId: string | null;
  readonly name: string;
  readonly projectStopped: boolean;
  /** Set when an OAuth access token (not an API key) authenticated the call: who it names. */
  readonly subject?: Subject;
  /** The agent an access token's agent claim names (it takes the place of the X-Agent-Id header). */
  readonly tokenAgentId?: string | null;
}

/** The credential id of every call an access token's subject makes: `oidc:` and a hash of issuer and sub. */
export const TOKEN_CREDENTIAL_PREFIX = 'oidc:';

export function isTokenCredentialId(credentialId: string): boolean {
  return credentialId.startsWith(TOKEN_CREDENTIAL_PREFIX);
}

/** A person or client as the organisation's identity provider names it (daemon/identity/). */
export interface Subject {
  readonly issuer: string;
  readonly sub: string;
  /** The display-name claim, or `sub` when the token carries none. */
  readonly name: string;
}

/** A credential as GET /api/v1/keys lists it: never its secret, only the prefix it shows. */
export interface CredentialListing {
  id: string;
  name: string;
  kind: CredentialKind;
  role: Role | null;
  user_id: string | null;
  prefix: string;
  created_at: string;
  created_by: string | null;
  revoked_at: string | null;
}
