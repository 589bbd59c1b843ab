// The caller a credential's row stands for: the columns auth.ts reads for a key and
// console-session.ts for a session's credential, made into one frozen Principal in one place.
import type { CredentialKind, Principal, Role } from '../../shared/credentials.js';

export interface PrincipalRow {
  credential_id: string;
  project_id: string;
  kind: CredentialKind;
  role: Role | null;
  user_id: string | null;
  name: string;
  /** Whether the credential's project is under an emergency stop. */
  stopped: boolean;
}

export function principalOfRow(row: PrincipalRow): Principal {
  return Object.freeze({
    credentialId: row.credential_id,
    projectId: row.project_id,
    kind: row.kind,
    role: row.role,
    userId: row.user_id,
    name: row.name,
    projectStopped: row.stopped,
  });
}
