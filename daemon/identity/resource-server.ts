// The MCP proxy as an OAuth 2.1 resource server (MCP authorization spec): its resource identifier,
// its protected resource metadata (RFC 9728), the WWW-Authenticate challenge of a 401, and the
// validation of one bearer token down to who is calling. http/auth.ts dispatches JWTs here.
import { GatewayError } from '../../shared/errors.js';
import type { IdentityConfig } from '../config-identity.js';
import { verifyAccessToken } from './access-token.js';
import { identityOf, type TokenIdentity } from './claims.js';
import type { IssuerKeys } from './jwks.js';

/** The path the MCP proxy serves under; its default resource identifier is the public URL plus this. */
export const PROXY_PATH = '/api/v1/mcp/proxy';
export const METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Three base64url segments (the signature may be empty: `alg: none` is refused by validation, not here). */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function looksLikeJwt(token: string): boolean {
  return JWT_SHAPE.test(token);
}

export class ResourceServer {
  constructor(
    readonly config: IdentityConfig,
    private readonly keys: IssuerKeys,
    private readonly publicUrl: () => string,
  ) {}

  /** GATEWAY_OIDC_RESOURCE, else `<public URL>/api/v1/mcp/proxy`: the `aud` every token must carry. */
  resource(): string {
    return this.config.resource ?? `${this.publicUrl()}${PROXY_PATH}`;
  }

  /** Where this daemon serves its protected resource metadata (RFC 9728 section 3.1, the proxy path inserted). */
  metadataUrl(): string {
    return `${this.publicUrl()}${METADATA_PATH}${PROXY_PATH}`;
  }

  /** Whether a request path is the protected resource's (its 401s carry the challenge). */
  protects(pathname: string): boolean {
    return pathname === PROXY_PATH || pathname.startsWith(`${PROXY_PATH}/`);
  }

  /** The RFC 9728 document. */
  metadataDocument(): Record<string, unknown> {
    return {
      resource: this.resource(),
      authorization_servers: [this.config.issuer],
      scopes_supported: [...this.config.requiredScopes],
      bearer_methods_supported: ['header'],
      resource_name: 'governance-gateway MCP proxy',
    };
  }

  /** The WWW-Authenticate value (RFC 6750 section 3, RFC 9728 section 5.1). */
  challenge(error?: { error: string; description: string }): string {
    const parts = [`resource_metadata="${this.metadataUrl()}"`];
    if (this.config.requiredScopes.length > 0) parts.push(`scope="${this.config.requiredScopes.join(' ')}"`);
    if (error) parts.push(`error="${error.error}"`, `error_description="${quoted(error.description)}"`);
    return `Bearer ${parts.join(', ')}`;
  }

  /** The token's identity, or the refusal: 401 invalid_token, 403 insufficient_scope, with the challenge. */
  async identify(token: string): Promise<TokenIdentity> {
    const verdict = await verifyAccessToken(token, this.keys, this.config, this.resource());
    if (!verdict.ok) throw this.refusal(verdict.error, verdict.description);
    const claims = identityOf(verdict.payload, this.config);
    if (!claims.ok) throw this.refusal('invalid_token', claims.description);
    return claims.identity;
  }

  /** A refusal of a token (its description shown to the client as message and error_description). */
  refusal(error: 'invalid_token' | 'insufficient_scope', description: string): GatewayError {
    const code = error === 'insufficient_scope' ? 'forbidden' : 'unauthorized';
    return new GatewayError(code, `Access token refused: ${description}.`, { 'WWW-Authenticate': this.challenge({ error, description }) });
  }
}

/** A quoted-string's content (RFC 9110 5.6.4): no quotes or backslashes, printable ASCII only. */
function quoted(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}
