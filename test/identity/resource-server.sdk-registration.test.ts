// An MCP host as the MCP authorization specification describes it, with the SDK's own OAuth
// support and nothing configured but the proxy URL: it meets the 401 challenge, reads the protected
// resource metadata, discovers the authorization server (oidc-provider), registers itself there by
// dynamic client registration (RFC 7591), sends the person to sign in (authorization code with
// PKCE, the resource indicator for this gateway), redeems the code and calls a tool as that person.
import t from 'tap';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { decodeJwt } from 'jose';
import { activeServer, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { authorizeAt } from '../helpers/oidc-code-user.js';
import { Browser } from '../helpers/oidc-device-user.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';

/** A host that keeps what it is given in memory and, instead of opening a browser, remembers where it was sent. */
class Host implements OAuthClientProvider {
  registered: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  sentTo: URL | null = null;
  constructor(readonly redirectUrl: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'registration test host',
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'mcp:tools',
    };
  }
  clientInformation() {
    return this.registered;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.registered = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.sentTo = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

t.test('the SDK host registers itself, the person signs in, and the call goes through as her', async (t) => {
  const idp = await startOidcProvider(t, [], {
    people: [{ id: 'alice', claims: { name: 'Alice Example', groups: ['gw-devs'], gateway_project: 'default' } }],
  });
  const px = await startProxyGateway(t, {
    GATEWAY_OIDC_ISSUER: idp.issuer,
    GATEWAY_OIDC_REQUIRED_SCOPES: 'mcp:tools',
    GATEWAY_OIDC_GROUP_ROLES: 'gw-devs=editor',
  });
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const endpoint = new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`);
  const host = new Host('http://127.0.0.1:1/mcp-host/callback'); // never listened on: the test reads the redirect

  const first = new Client({ name: 'registration-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(endpoint, { authProvider: host });
  await t.rejects(first.connect(transport), /Unauthorized/, 'no token yet: the host is sent to sign in');
  t.type(host.registered?.client_id, 'string', 'the host registered itself at the provider (dynamic client registration)');
  t.ok(host.sentTo, 'and was sent to its authorization endpoint');
  const authorize = host.sentTo!;
  t.equal(authorize.origin, new URL(idp.issuer).origin, 'the issuer found from the gateway’s metadata');
  t.equal(authorize.searchParams.get('resource'), `${px.url}/api/v1/mcp/proxy`, 'asking for this gateway as the resource');
  t.equal(authorize.searchParams.get('code_challenge_method'), 'S256');

  const back = await authorizeAt(new Browser(), authorize, 'alice', (u) => u.href.startsWith(host.redirectUrl));
  const code = back.searchParams.get('code');
  t.type(code, 'string', `the provider sent the person back with a code: ${back.href}`);
  await transport.finishAuth(code!);
  const claims = decodeJwt(host.saved!.access_token);
  t.equal(claims.aud, `${px.url}/api/v1/mcp/proxy`, 'the token is for this gateway');
  t.equal(claims.sub, 'alice');

  const client = new Client({ name: 'registration-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(endpoint, { authProvider: host }));
  t.teardown(() => client.close());
  const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Lyon' } });
  t.same(result.content, [{ type: 'text', text: '{"city":"Lyon"}' }]);
  t.equal(up.calls(), 1);
  await px.proxy.outcomes.flush();
  const [trace] = await px.gw.db<{ subject: unknown }[]>`
    select c.body -> 'subject' as subject from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_TOOL_CALL' order by t.sequence_num desc limit 1`;
  t.same(trace?.subject, { issuer: idp.issuer, sub: 'alice', name: 'Alice Example' }, 'the call is recorded as hers');
});
