// The console's only way to the gateway: same-origin fetches of the /api/v1 routes gatewayctl uses,
// authenticated by the session cookie, each state-changing one with the session's CSRF token.
export interface Session {
  credential: { id: string; name: string; kind: string; role: string | null; user_id: string | null };
  /** Set when the identity provider signed the person in: who it names. */
  subject: { issuer: string; sub: string } | null;
  /** Whether the session may decide approvals (an Admin person: a user token or a person the identity provider signed in). */
  may_decide: boolean;
  project_id: string;
  csrf_token: string;
  expires_at: string;
  idle_expires_at: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';
let onSignedOut: () => void = () => undefined;

export function useSession(session: Session | null, signedOut?: () => void): void {
  csrfToken = session?.csrf_token ?? '';
  if (signedOut) onSignedOut = signedOut;
}

export async function request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['x-gateway-csrf'] = csrfToken;
  const res = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    cache: 'no-store',
  });
  if (res.status === 204) return undefined as T;
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const error = (data as { error?: { code?: string; message?: string } } | null)?.error;
    if (res.status === 401 && path !== '/api/v1/console/session') onSignedOut();
    throw new ApiError(res.status, error?.code ?? `http_${res.status}`, error?.message ?? `The gateway answered ${res.status}.`);
  }
  return data as T;
}

export const readSession = () => request<Session>('GET', '/api/v1/console/session');
export const signIn = (key: string) => request<Session>('POST', '/api/v1/console/session', { key });
export const signOut = () => request<void>('DELETE', '/api/v1/console/session');

/** Sign-in by the organisation's identity provider, when the gateway offers it (404 otherwise). */
export const readIdentityProvider = () => request<{ issuer: string; start: string }>('GET', '/api/v1/console/oidc');
