// The bearer of a command: a saved API key as it is, or the access token of a sign-in with the
// identity provider, refreshed with its refresh token when it has expired (before a request) or is
// refused (once, on a 401), the new tokens written back to the context they came from.
import { type Connection, type OidcSignIn, updateSignIn } from './config.js';
import { IssuerRefusal, SignInRequired } from './errors.js';
import { isTokenResponse, postForm, type TokenResponse } from './oidc-http.js';

/** Where an API client takes its bearer from. */
export interface TokenSource {
  /** The bearer to send now. */
  current(): Promise<string>;
  /** A new bearer after `refused` was answered 401; null when there is none to try. */
  renew(refused: string): Promise<string | null>;
}

/** Refreshed this long before the access token's expiry, so that it does not expire on the way. */
const EARLY_SECONDS = 30;

/** One source per sign-in in a process: a rotated refresh token is good once, so two sources of one sign-in would clash. */
const sources = new Map<string, TokenSource>();

export function tokenSourceOf(connection: Connection): TokenSource {
  const oidc = connection.oidc;
  if (!oidc || !isSignIn(oidc)) return { current: async () => connection.token, renew: async () => null };
  const key = `${connection.context ?? ''}\u0000${connection.url}\u0000${connection.token}`;
  let source = sources.get(key);
  if (!source) sources.set(key, (source = new RefreshingTokens(connection, oidc)));
  return source;
}

function isSignIn(v: OidcSignIn): boolean {
  return ['issuer', 'client_id', 'token_endpoint', 'resource'].every((k) => typeof v[k as keyof OidcSignIn] === 'string');
}

/** The token set of a token response, as saved: expiry in epoch seconds; an absent refresh token keeps the old one. */
export function signInOf(base: Omit<OidcSignIn, 'refresh_token' | 'expires_at'>, t: TokenResponse, oldRefresh: string | null): OidcSignIn {
  const expiresAt = typeof t.expires_in === 'number' && t.expires_in > 0 ? Math.floor(Date.now() / 1000) + t.expires_in : null;
  return { ...base, refresh_token: t.refresh_token ?? oldRefresh, expires_at: expiresAt };
}

class RefreshingTokens implements TokenSource {
  private token: string;
  private signIn: OidcSignIn;
  private refreshing: Promise<string> | null = null;

  constructor(
    private readonly connection: Connection,
    oidc: OidcSignIn,
  ) {
    this.token = connection.token;
    this.signIn = oidc;
  }

  async current(): Promise<string> {
    const exp = this.signIn.expires_at;
    if (exp !== null && exp - EARLY_SECONDS <= Date.now() / 1000) return this.refresh();
    return this.token;
  }

  async renew(refused: string): Promise<string | null> {
    // Another request of this command may have refreshed meanwhile: its token is tried first.
    if (refused !== this.token) return this.token;
    return this.refresh();
  }

  /** One refresh at a time: concurrent requests share it (a rotated refresh token is good once only). */
  private refresh(): Promise<string> {
    this.refreshing ??= this.doRefresh().finally(() => {
      this.refreshing = null;
    });
    return this.refreshing;
  }

  private async doRefresh(): Promise<string> {
    const s = this.signIn;
    const again = `sign in again: gatewayctl login --oidc --url ${this.connection.url}`;
    if (!s.refresh_token) throw new SignInRequired(`the sign-in at ${s.issuer} has expired and holds no refresh token; ${again}`);
    const answer = await postForm<TokenResponse>(s.token_endpoint, {
      grant_type: 'refresh_token',
      refresh_token: s.refresh_token,
      client_id: s.client_id,
      resource: s.resource,
    });
    if (!answer.ok) {
      if (answer.error === 'invalid_grant' || answer.error === 'invalid_client' || answer.error === 'unauthorized_client')
        throw new SignInRequired(`the sign-in at ${s.issuer} has expired or was revoked (${answer.error}); ${again}`);
      throw new IssuerRefusal(answer.error, `${s.issuer} refused to refresh the sign-in: ${answer.description ?? answer.error}`);
    }
    if (!isTokenResponse(answer.body))
      throw new IssuerRefusal('invalid_response', `${s.issuer} answered the refresh without an access token`);
    const before = { url: this.connection.url, token: this.token };
    this.signIn = signInOf(s, answer.body, s.refresh_token);
    this.token = answer.body.access_token;
    if (this.connection.context) await updateSignIn(this.connection.context, before, this.token, this.signIn);
    return this.token;
  }
}
