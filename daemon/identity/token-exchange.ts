// Upstream identity (docs/identity.md#upstream-identity): the gateway exchanges the caller's access
// token for one the upstream accepts (RFC 8693) at the issuer's token endpoint, as its own client,
// so the upstream sees the person; a scan, which has no caller, signs in as the gateway itself
// (client credentials). Issued tokens are cached per (server, subject, what was asked) until shortly
// before they expire, in a bounded map; they are never logged, traced or returned to a client.
import { decodeJwt } from 'jose';
import type { TokenExchangeConfig } from '../../shared/mcp-schemas.js';
import type { Logger } from '../log.js';
import { type FetchDeps, IssuerUnreachable, postForm } from './guarded-fetch.js';
import { fetchIssuerMetadata } from './issuer-metadata.js';

export const TOKEN_EXCHANGE_GRANT = 'urn:ietf:params:oauth:grant-type:token-exchange';
export const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';

/** A token is not reused within this long of its expiry (nor of the subject token's). */
export const RENEW_BEFORE_MS = 30_000;
/** Cached tokens at most; the one nearest its expiry leaves first. */
export const CACHE_LIMIT = 1000;
const MAX_TOKEN_CHARS = 16_384;
const BEARER = /^[A-Za-z0-9\-._~+/]+=*$/;

/** Why no token: `refused` (the issuer said no), `unreachable` (no usable answer). Its detail names no token. */
export class ExchangeFailure extends Error {
  constructor(
    readonly kind: 'token_exchange_refused' | 'token_exchange_unreachable',
    detail: string,
  ) {
    super(detail);
    this.name = 'ExchangeFailure';
  }
}

/** Who is asking: the caller's subject (its credential id) and its validated access token. */
export interface ExchangeSubject {
  readonly key: string;
  readonly token: string;
}

interface Cached {
  readonly token: string;
  readonly reuseUntil: number;
}

export class UpstreamTokens {
  private endpoint: URL | null = null;
  private readonly cache = new Map<string, Cached>();
  /** Fetches under way, by cache key. */
  private readonly fetching = new Map<string, Promise<string>>();

  constructor(
    private readonly issuer: string,
    private readonly deps: FetchDeps,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** The caller's token exchanged for one `config` names, from the cache while it is fresh. */
  async exchange(serverId: string, config: TokenExchangeConfig, subject: ExchangeSubject): Promise<string> {
    const key = cacheKey(serverId, subject.key, config);
    return this.cachedOr(key, subjectExpiry(subject.token), () =>
      this.request(serverId, config, {
        grant_type: TOKEN_EXCHANGE_GRANT,
        subject_token: subject.token,
        subject_token_type: ACCESS_TOKEN_TYPE,
        requested_token_type: ACCESS_TOKEN_TYPE,
      }),
    );
  }

  /** The gateway's own token for the upstream (client credentials): a scan has no caller to exchange for. */
  async ownToken(serverId: string, config: TokenExchangeConfig): Promise<string> {
    return this.cachedOr(cacheKey(serverId, '\u0000gateway', config), Number.POSITIVE_INFINITY, () =>
      this.request(serverId, config, { grant_type: 'client_credentials' }),
    );
  }

  /**
   * The cached token, or one fetched now; callers that miss the same key at once share one fetch (a
   * subject's first calls made side by side cost the issuer one exchange, not one each).
   */
  private cachedOr(key: string, capAt: number, fetchToken: () => Promise<Issued>): Promise<string> {
    const now = this.now();
    const hit = this.cache.get(key);
    if (hit !== undefined && now < hit.reuseUntil) return Promise.resolve(hit.token);
    const pending = this.fetching.get(key);
    if (pending !== undefined) return pending;
    this.cache.delete(key);
    const fetched = fetchToken().then((issued) => {
      const reuseUntil = Math.min(now + issued.expiresInMs, capAt) - RENEW_BEFORE_MS;
      if (reuseUntil > now) this.remember(key, { token: issued.token, reuseUntil });
      return issued.token;
    });
    this.fetching.set(key, fetched);
    const done = () => this.fetching.delete(key);
    fetched.then(done, done);
    return fetched;
  }

  private remember(key: string, entry: Cached): void {
    if (this.cache.size >= CACHE_LIMIT) {
      const now = this.now();
      for (const [k, v] of this.cache) if (v.reuseUntil <= now) this.cache.delete(k);
      if (this.cache.size >= CACHE_LIMIT) {
        let soonest: string | undefined;
        for (const [k, v] of this.cache) if (soonest === undefined || v.reuseUntil < this.cache.get(soonest)!.reuseUntil) soonest = k;
        this.cache.delete(soonest!);
      }
    }
    this.cache.set(key, entry);
  }

  private async tokenEndpoint(): Promise<URL> {
    if (this.endpoint === null) {
      const metadata = await fetchIssuerMetadata(this.deps, this.issuer);
      if (metadata.tokenEndpoint === null) throw new IssuerUnreachable(`the issuer's metadata names no token_endpoint`);
      this.endpoint = metadata.tokenEndpoint;
    }
    return this.endpoint;
  }

  private async request(serverId: string, config: TokenExchangeConfig, grant: Record<string, string>): Promise<Issued> {
    const form: Record<string, string> = { ...grant };
    if (config.resource !== undefined) form.resource = config.resource;
    if (config.audience !== undefined) form.audience = config.audience;
    if (config.scope !== undefined && config.scope !== '') form.scope = config.scope;
    // RFC 6749 2.3.1: id and secret form-encoded, then Basic.
    const basic = Buffer.from(`${encodeURIComponent(config.client_id)}:${encodeURIComponent(config.client_secret)}`).toString('base64');
    let answer: { status: number; body: Record<string, unknown> };
    try {
      answer = await postForm(this.deps, (await this.tokenEndpoint()).href, form, { authorization: `Basic ${basic}` });
    } catch (err) {
      if (!(err instanceof IssuerUnreachable)) throw err;
      this.log.warn({ server_id: serverId, grant: grant.grant_type, reason: err.reason }, 'upstream token: the issuer cannot be reached');
      throw new ExchangeFailure('token_exchange_unreachable', `the authorization server cannot be reached (${err.reason})`);
    }
    const issued = readIssued(answer);
    if ('refused' in issued) {
      this.log.warn(
        { server_id: serverId, grant: grant.grant_type, status: answer.status, reason: issued.refused },
        'upstream token refused',
      );
      throw new ExchangeFailure(answer.status >= 500 ? 'token_exchange_unreachable' : 'token_exchange_refused', issued.refused);
    }
    return issued;
  }
}

interface Issued {
  readonly token: string;
  readonly expiresInMs: number;
}

/** The issued token, or why the answer is a refusal (the provider's error code and description, never a token). */
function readIssued(answer: { status: number; body: Record<string, unknown> }): Issued | { refused: string } {
  const { status, body } = answer;
  if (status < 200 || status > 299) {
    const error = printable(body.error) ?? `HTTP ${status}`;
    const description = printable(body.error_description);
    return { refused: `the authorization server refused the token request: ${error}${description ? ` (${description})` : ''}` };
  }
  const token = body.access_token;
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !BEARER.test(token))
    return { refused: 'the authorization server answered without a usable access_token' };
  if (typeof body.token_type !== 'string' || body.token_type.toLowerCase() !== 'bearer')
    return { refused: `the authorization server issued a token of type ${JSON.stringify(printable(body.token_type) ?? null)}, not Bearer` };
  // Without expires_in the token serves this call only.
  const expiresIn = typeof body.expires_in === 'number' && Number.isFinite(body.expires_in) ? body.expires_in : 0;
  return { token, expiresInMs: Math.max(0, expiresIn) * 1000 };
}

function printable(value: unknown): string | undefined {
  return typeof value === 'string' ? value.replace(/[^\x20-\x7e]/g, '?').slice(0, 300) : undefined;
}

/** An exchanged token is not kept past the token it was exchanged for. */
function subjectExpiry(token: string): number {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' ? exp * 1000 : Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function cacheKey(serverId: string, subjectKey: string, c: TokenExchangeConfig): string {
  return [serverId, subjectKey, c.client_id, c.resource ?? '', c.audience ?? '', c.scope ?? ''].join('\u0000');
}
