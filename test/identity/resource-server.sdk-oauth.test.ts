// An MCP SDK client with the SDK's own OAuth support, knowing only the proxy URL and its client
// credentials: it meets the 401 challenge, reads the protected resource metadata, discovers the
// authorization server (oidc-provider), gets a token for the resource it found, and calls a tool.
import t from 'tap';
import { ClientCredentialsProvider } from '@modelcontextprotocol/sdk/client/auth-extensions.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { activeServer, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';

t.test('the SDK client discovers the issuer from the challenge and calls through the proxy', async (t) => {
  const secret = 'a-client-secret-of-enough-length-0123456789';
  const idp = await startOidcProvider(t, [
    { id: 'build-agent', secret, claims: { name: 'Build agent', groups: ['viewer'], gateway_project: 'default' } },
  ]);
  const px = await startProxyGateway(t, { GATEWAY_OIDC_ISSUER: idp.issuer, GATEWAY_OIDC_REQUIRED_SCOPES: 'mcp:tools' });
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });

  const auth = new ClientCredentialsProvider({
    clientId: 'build-agent',
    clientSecret: secret,
    scope: 'mcp:tools',
    expectedIssuer: idp.issuer,
  });
  const client = new Client({ name: 'sdk-oauth-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`), { authProvider: auth }));
  t.teardown(() => client.close());
  const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Lyon' } });
  t.same(result.content, [{ type: 'text', text: '{"city":"Lyon"}' }]);
  t.equal(up.calls(), 1);
  const claims = decodeJwt(auth.tokens()!.access_token);
  t.equal(claims.aud, `${px.url}/api/v1/mcp/proxy`, 'the token was asked for the resource the metadata named');
  t.equal(claims.iss, idp.issuer);
});
