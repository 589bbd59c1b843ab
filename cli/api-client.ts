// A small client for the daemon's /api/v1: JSON in, JSON out, bearer token, bounded time. It turns
// every non-2xx answer into a GatewayRefusal and every transport failure into GatewayUnavailable.
// The bearer comes from a TokenSource: a sign-in's access token is refreshed, and retried once on a 401.
import type { Connection } from './config.js';
import { GatewayRefusal, GatewayUnavailable } from './errors.js';
import { type TokenSource, tokenSourceOf } from './oidc-tokens.js';

const TIMEOUT_MS = 30_000;

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

function isErrorBody(value: unknown): value is { error: { code: string; message: string; request_id?: string } } {
  const e = (value as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof e?.code === 'string' && typeof e.message === 'string';
}

/** undici reports transport failures as TypeError('fetch failed') with the reason in `cause.code`
 * (the message only when there is no code, e.g. a port fetch refuses to use). */
function transportCode(err: unknown): string {
  if (err instanceof DOMException && err.name === 'TimeoutError') return 'timeout';
  const cause = (err as { cause?: { code?: unknown; message?: unknown; cause?: { code?: unknown } } }).cause;
  const code = cause?.code ?? cause?.cause?.code;
  if (typeof code === 'string') return code;
  return typeof cause?.message === 'string' ? cause.message : 'unknown';
}

export class ApiClient {
  constructor(
    private readonly connection: Connection,
    private readonly userAgent: string,
    private readonly tokens: TokenSource = tokenSourceOf(connection),
  ) {}

  /** The bearer to send now (a sign-in's access token is refreshed first when it has expired). */
  protected bearer(): Promise<string> {
    return this.tokens.current();
  }

  get url(): string {
    return this.connection.url;
  }

  /** `timeoutMs` only for routes that wait on purpose (anchor run-now waits for a receipt). */
  async request<T>(method: Method, route: string, body?: unknown, timeoutMs = TIMEOUT_MS): Promise<T> {
    const token = await this.bearer();
    try {
      return await this.send<T>(token, method, route, body, timeoutMs);
    } catch (err) {
      const renewed = err instanceof GatewayRefusal && err.status === 401 ? await this.tokens.renew(token) : null;
      if (renewed === null) throw err;
      return this.send<T>(renewed, method, route, body, timeoutMs);
    }
  }

  private async send<T>(token: string, method: Method, route: string, body: unknown, timeoutMs: number): Promise<T> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      authorization: `Bearer ${token}`,
      'user-agent': this.userAgent,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    let text: string;
    try {
      res = await fetch(this.connection.url + route, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      const code = transportCode(err);
      const what = code === 'timeout' ? `no answer within ${timeoutMs / 1000}s` : code;
      throw new GatewayUnavailable(`cannot reach the gateway at ${this.connection.url} (${what})`);
    }
    const parsed = parseJson(text);
    if (res.ok) {
      if (parsed === undefined)
        throw new GatewayUnavailable(`${this.connection.url} answered ${res.status} without JSON; is it a gateway?`);
      return parsed as T;
    }
    if (isErrorBody(parsed)) throw new GatewayRefusal(res.status, parsed.error.code, parsed.error.message, parsed.error.request_id);
    if (res.status >= 500) throw new GatewayUnavailable(`${this.connection.url} answered HTTP ${res.status}`);
    throw new GatewayRefusal(
      res.status,
      `http_${res.status}`,
      `${this.connection.url} answered without a gateway error body; is it a gateway?`,
      undefined,
    );
  }
}

function parseJson(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
