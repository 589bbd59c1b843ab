// A real OpenID provider for the identity tests: oidc-provider (a certified implementation) on
// 127.0.0.1, issuing JWT access tokens for any resource indicator (RFC 8707) by the client
// credentials grant. Each client stands for a user or an agent with its groups, project and name
// (carried into its tokens as claims). Its signing key can be rotated, it can be stopped and started
// again on the same port, and it counts the reads of its key set. With `people`, it also signs
// people in by the device flow (RFC 8628) for the public client `gatewayctl`, through its own
// development login and consent pages (any password; the login names the person). With
// `webClients`, it signs people in by the authorization code flow (PKCE required) for those
// confidential clients (the web console), their claims in the ID token too. It exchanges
// tokens (RFC 8693) for clients allowed the grant (oidc-token-exchange.ts).
import http from 'node:http';
import type net from 'node:net';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import Provider from 'oidc-provider';
import type { Test } from 'tap';
import { type ExchangeGrant, exchangeGrant } from './oidc-token-exchange.js';
import { freeLoopbackPort } from './ports.js';

export interface TestClient {
  readonly id: string;
  readonly secret: string;
  /** Claims its tokens carry besides the standard ones (groups, gateway_project, name, ...). */
  readonly claims: Record<string, unknown>;
  /** Scopes it may ask for; default `mcp:tools`. */
  readonly scope?: string;
  /** Grants it may use; default client_credentials (a gateway exchanging tokens adds TOKEN_EXCHANGE_GRANT). */
  readonly grants?: readonly string[];
}

export interface TestProvider {
  readonly issuer: string;
  readonly port: number;
  /** The current signing key (private JWK with kid) and the previous ones, newest first. */
  readonly keys: () => readonly JWK[];
  /** A JWT access token for `resource` from the client credentials grant. */
  token(clientId: string, resource: string, scope?: string): Promise<string>;
  /** A new signing key replaces the current one; the old key leaves the published key set. */
  rotate(): Promise<void>;
  /**
   * Makes the token endpoint see the next code redemptions as made by another client (its Basic
   * credentials swapped in): an ID token issued to a client the gateway is not. null: as sent.
   */
  redeemAs(client: { id: string; secret: string } | null): void;
  /** Reads of /jwks so far. */
  jwksReads(): number;
  /** Its token exchange grant (oidc-token-exchange.ts): what it saw, and the switches of the tests. */
  readonly exchange: ExchangeGrant;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** A person who signs in (device flow): the login is `id`; the claims go into their access tokens. */
export interface TestPerson {
  readonly id: string;
  readonly claims: Record<string, unknown>;
}

/** A confidential client of the authorization code flow (the web console), PKCE required. */
export interface WebClient {
  readonly id: string;
  readonly secret: string;
  readonly redirectUri: string;
}

/** The public client gatewayctl signs people in with (device grant, refresh tokens). */
export const CLI_CLIENT_ID = 'gatewayctl';

export const DEFAULT_SCOPE = 'mcp:tools';

async function signingKey(): Promise<JWK> {
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: `k-${Math.random().toString(36).slice(2, 10)}`, alg: 'RS256', use: 'sig' };
}

const CLI_CLIENT = {
  client_id: CLI_CLIENT_ID,
  token_endpoint_auth_method: 'none' as const,
  grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
  response_types: [],
  redirect_uris: [],
  scope: `openid offline_access ${DEFAULT_SCOPE}`,
};

function buildProvider(
  issuer: string,
  clients: readonly TestClient[],
  key: JWK,
  people: readonly TestPerson[],
  webClients: readonly WebClient[],
  exchange: ExchangeGrant,
): Provider {
  const byId = new Map(clients.map((c) => [c.id, c]));
  const personById = new Map(people.map((p) => [p.id, p]));
  const devicePeople = people.length > 0;
  const claimNames = [...new Set(people.flatMap((p) => Object.keys(p.claims)))];
  const provider = new Provider(issuer, {
    // People's claims go into their ID tokens (the console reads them there), not only to userinfo.
    conformIdTokenClaims: false,
    claims: { openid: ['sub', ...claimNames] },
    pkce: { required: () => true },
    clients: [
      ...clients.map((c) => ({
        client_id: c.id,
        client_secret: c.secret,
        grant_types: [...(c.grants ?? ['client_credentials'])],
        response_types: [],
        redirect_uris: [],
        scope: c.scope ?? DEFAULT_SCOPE,
      })),
      ...(devicePeople ? [CLI_CLIENT] : []),
      ...webClients.map((c) => ({
        client_id: c.id,
        client_secret: c.secret,
        token_endpoint_auth_method: 'client_secret_basic' as const,
        grant_types: ['authorization_code'],
        response_types: ['code' as const],
        redirect_uris: [c.redirectUri],
      })),
    ],
    jwks: { keys: [key] },
    scopes: ['openid', 'offline_access', DEFAULT_SCOPE, 'mcp:other'],
    findAccount: (_ctx, id) =>
      personById.has(id) ? { accountId: id, claims: () => ({ ...personById.get(id)!.claims, sub: id }) } : undefined,
    // Refresh tokens for the CLI whatever its scopes (the default wants offline_access granted by a consent prompt).
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    features: {
      devInteractions: { enabled: devicePeople },
      deviceFlow: { enabled: devicePeople },
      revocation: { enabled: devicePeople },
      clientCredentials: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => undefined,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: `${DEFAULT_SCOPE} mcp:other`,
          audience: resource,
          accessTokenTTL: 300,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    extraTokenClaims: (_ctx, token) => {
      const accountId = (token as { accountId?: string }).accountId;
      if (accountId !== undefined) return personById.get(accountId)?.claims;
      const clientId = (token as { clientId?: string }).clientId;
      const client = clientId === undefined ? undefined : byId.get(clientId);
      return client ? { sub: client.id, ...client.claims } : undefined;
    },
  });
  provider.on('server_error', (_ctx, err) => console.error('oidc-provider server_error', err));
  exchange.register(provider);
  return provider;
}

/** Starts the provider on a free loopback port (or `port`); stopped at the test's end. */
export async function startOidcProvider(
  t: Test,
  clients: readonly TestClient[],
  options: { port?: number; listen?: boolean; people?: readonly TestPerson[]; webClients?: readonly WebClient[] } = {},
): Promise<TestProvider> {
  const port = options.port ?? (await freeLoopbackPort());
  const issuer = `http://127.0.0.1:${port}`;
  const keys: JWK[] = [await signingKey()];
  const people = options.people ?? [];
  const webClients = options.webClients ?? [];
  const exchange = exchangeGrant(issuer, () => [...keys].reverse());
  let handler = buildProvider(issuer, clients, keys[0]!, people, webClients, exchange).callback();
  let reads = 0;
  let redeemer: { id: string; secret: string } | null = null;
  let server: http.Server | null = null;
  const sockets = new Set<net.Socket>();

  const start = async () => {
    const s = http.createServer((req, res) => {
      if (req.url?.startsWith('/jwks')) reads += 1;
      if (redeemer !== null && req.method === 'POST' && req.url === '/token')
        req.headers.authorization = `Basic ${Buffer.from(`${redeemer.id}:${redeemer.secret}`).toString('base64')}`;
      void handler(req, res);
    });
    s.on('connection', (sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
    await new Promise<void>((resolve, reject) => {
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => resolve());
    });
    server = s;
  };
  const stop = async () => {
    const s = server;
    server = null;
    if (!s) return;
    for (const sock of sockets) sock.destroy();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  };
  if (options.listen !== false) await start();
  t.teardown(stop);

  const token: TestProvider['token'] = async (clientId, resource, scope = DEFAULT_SCOPE) => {
    const client = clients.find((c) => c.id === clientId)!;
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${client.id}:${client.secret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope }),
    });
    const body = (await res.json()) as { access_token?: string; error?: string; error_description?: string };
    if (!body.access_token) throw new Error(`token: ${res.status} ${body.error} ${body.error_description}`);
    return body.access_token;
  };

  return {
    issuer,
    port,
    keys: () => [...keys].reverse(),
    token,
    async rotate() {
      keys.push(await signingKey());
      handler = buildProvider(issuer, clients, keys.at(-1)!, people, webClients, exchange).callback();
    },
    redeemAs(client) {
      redeemer = client;
    },
    jwksReads: () => reads,
    exchange,
    stop,
    start,
  };
}
