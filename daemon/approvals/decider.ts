// Who may decide an approval, in one place. A decision is a person's: the user behind a user token,
// or a subject the organisation's identity provider names (an OAuth access token, or a console
// session the issuer opened). The decide routes require the Admin role besides. A project key is
// nobody in particular, so it may not decide, whatever its role. With
// GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER, nobody decides a request they opened themselves.
import type { Principal } from '../../shared/credentials.js';
import type { Tx } from '../db/connect.js';
import { subjectCredentialId } from '../identity/principal.js';

export interface Decider {
  /** How records name the decider (decided_by): a user id, or a subject's display name and sub. */
  readonly label: string;
}

/** The person a caller is, or null when they are no one a decision can be held against. */
export function deciderOf(p: Principal | null): Decider | null {
  if (p === null) return null;
  if (p.subject) return { label: p.subject.name === p.subject.sub ? p.subject.sub : `${p.subject.name} (${p.subject.sub})` };
  if (p.userId) return { label: p.userId };
  return null;
}

/**
 * Whether the decider opened the request: the same credential; the same subject (the credential id
 * of all of a subject's calls and console sessions derives from issuer and sub); or another user
 * token of the same user.
 */
export async function decidesOwnRequest(tx: Tx, requester: string | null, decider: Principal): Promise<boolean> {
  if (requester === null) return false;
  if (requester === decider.credentialId) return true;
  if (decider.subject && requester === subjectCredentialId(decider.subject.issuer, decider.subject.sub)) return true;
  if (decider.userId === null) return false;
  const [owner] = await tx<{ user_id: string | null }[]>`select user_id from credentials where id = ${requester}`;
  return owner?.user_id != null && owner.user_id === decider.userId;
}
