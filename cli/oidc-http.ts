// gatewayctl's requests to the gateway's identity provider (and to the gateway's public metadata):
// a JSON GET and the form POST of the OAuth endpoints (RFC 6749 section 5), bounded in time, with
// transport failures as GatewayUnavailable. Tokens in answers are returned, never printed.
import { GatewayUnavailable } from './errors.js';

const TIMEOUT_MS = 30_000;

export interface TokenResponse {
  readonly access_token: string;
  readonly refresh_token?: string;
  readonly expires_in?: number;
}

/** An OAuth endpoint's answer: its JSON on 2xx, else its error (RFC 6749 section 5.2). */
export type OAuthAnswer<T> = { ok: true; body: T } | { ok: false; status: number; error: string; description: string | null };

async function send(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  let res: Response;
  let text: string;
  try {
    res = await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(TIMEOUT_MS) });
    text = await res.text();
  } catch (err) {
    const cause = (err as { cause?: { code?: unknown } }).cause;
    const why = err instanceof DOMException && err.name === 'TimeoutError' ? 'no answer in time' : String(cause?.code ?? 'unreachable');
    throw new GatewayUnavailable(`cannot reach ${new URL(url).origin} (${why})`);
  }
  try {
    return { status: res.status, body: JSON.parse(text) as unknown };
  } catch {
    return { status: res.status, body: undefined };
  }
}

/** GET a JSON document; null on 404, GatewayUnavailable when it is not JSON or another status. */
export async function getJson(url: string): Promise<Record<string, unknown> | null> {
  const { status, body } = await send(url, { headers: { accept: 'application/json' } });
  if (status === 404) return null;
  if (status !== 200 || typeof body !== 'object' || body === null)
    throw new GatewayUnavailable(`${url} answered HTTP ${status}${body === undefined ? ' without JSON' : ''}`);
  return body as Record<string, unknown>;
}

/** POST a form to an OAuth endpoint as a public client (its client_id in the form). */
export async function postForm<T>(url: string, form: Record<string, string>): Promise<OAuthAnswer<T>> {
  const { status, body } = await send(url, {
    method: 'POST',
    headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (status >= 200 && status < 300 && body !== undefined) return { ok: true, body: b as T };
  if (status >= 500 || typeof b.error !== 'string') throw new GatewayUnavailable(`${url} answered HTTP ${status}`);
  return { ok: false, status, error: b.error, description: typeof b.error_description === 'string' ? b.error_description : null };
}

export function isTokenResponse(v: unknown): v is TokenResponse {
  const t = v as TokenResponse;
  return typeof t?.access_token === 'string' && t.access_token.length > 0;
}
