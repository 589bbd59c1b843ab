// The issuer's metadata: RFC 8414 (/.well-known/oauth-authorization-server, path inserted after the
// host) first, then OpenID Connect Discovery (<issuer>/.well-known/openid-configuration). Its
// `issuer` must equal the configured one exactly (RFC 8414 section 3.3); it names the key set.
import { type FetchDeps, fetchJson, IssuerUnreachable } from './guarded-fetch.js';

export interface IssuerMetadata {
  readonly issuer: string;
  readonly jwksUri: URL;
  readonly scopesSupported: readonly string[] | null;
  /** Where people are sent to sign in and where codes are redeemed (the console's sign-in); null: not offered. */
  readonly authorizationEndpoint: URL | null;
  /** Where codes are redeemed and tokens exchanged (upstream identity, token-exchange.ts); null when the issuer names none. */
  readonly tokenEndpoint: URL | null;
}

/** The discovery URLs of an issuer, in the order they are tried. */
export function metadataUrls(issuer: string): string[] {
  const u = new URL(issuer);
  const path = u.pathname === '/' ? '' : u.pathname.replace(/\/$/, '');
  return [`${u.origin}/.well-known/oauth-authorization-server${path}`, `${u.origin}${path}/.well-known/openid-configuration`];
}

export async function fetchIssuerMetadata(deps: FetchDeps, issuer: string): Promise<IssuerMetadata> {
  for (const url of metadataUrls(issuer)) {
    const doc = await fetchJson(deps, url);
    if (doc !== null) return readMetadata(doc, issuer, url);
  }
  throw new IssuerUnreachable(`no metadata at ${metadataUrls(issuer).join(' or ')}`);
}

function readMetadata(doc: Record<string, unknown>, issuer: string, url: string): IssuerMetadata {
  if (doc.issuer !== issuer) throw new IssuerUnreachable(`${url}: names issuer ${JSON.stringify(doc.issuer)}, not ${issuer}`);
  let jwksUri: URL;
  try {
    jwksUri = new URL(String(doc.jwks_uri));
  } catch {
    throw new IssuerUnreachable(`${url}: no valid jwks_uri`);
  }
  if (jwksUri.protocol !== 'https:' && jwksUri.protocol !== 'http:') throw new IssuerUnreachable(`${url}: jwks_uri is not http(s)`);
  const scopes = Array.isArray(doc.scopes_supported) ? doc.scopes_supported.filter((s): s is string => typeof s === 'string') : null;
  return Object.freeze({
    issuer,
    jwksUri,
    scopesSupported: scopes,
    authorizationEndpoint: endpoint(doc.authorization_endpoint),
    tokenEndpoint: endpoint(doc.token_endpoint),
  });
}

/** An http(s) endpoint URL without fragment, or null. */
function endpoint(v: unknown): URL | null {
  if (typeof v !== 'string' || v.includes('#')) return null;
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u : null;
  } catch {
    return null;
  }
}
