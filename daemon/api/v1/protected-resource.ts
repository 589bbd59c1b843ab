// GET /.well-known/oauth-protected-resource (RFC 9728), also with the proxy path inserted, as MCP
// clients look for it: the MCP proxy's resource identifier and the authorization server that
// issues its tokens. Public; 404 while no issuer is configured. Served whether or not the issuer
// can be reached (the document is built from settings alone).
import { GatewayError } from '../../../shared/errors.js';
import type { Deps } from '../../deps.js';
import type { Route } from '../../http/types.js';
import { METADATA_PATH, PROXY_PATH, resourceServerOf } from '../../identity/index.js';

export function protectedResourceRoutes(deps: Deps): Route[] {
  const handler = async () => {
    const rs = resourceServerOf(deps.sql);
    if (!rs) throw new GatewayError('not_found', 'This gateway takes no OAuth access tokens (GATEWAY_OIDC_ISSUER is unset).');
    return { status: 200, body: rs.metadataDocument(), headers: { 'Cache-Control': 'max-age=300' } };
  };
  const paths = [METADATA_PATH, `${METADATA_PATH}${PROXY_PATH}`, `${METADATA_PATH}${PROXY_PATH}/:server_id`];
  return paths.map((path) => ({
    method: 'GET' as const,
    path,
    summary: 'OAuth protected resource metadata of the MCP proxy (RFC 9728)',
    description:
      'Names the resource identifier tokens must carry as aud and the authorization server. 404 when GATEWAY_OIDC_ISSUER is unset.',
    auth: 'public' as const,
    handler,
  }));
}
