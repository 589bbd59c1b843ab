// The issuer's keys when the issuer is away or out of bounds: the daemon starts and serves its
// metadata while the issuer is down, refuses tokens 401 with a clear reason until the keys can be
// read (API keys unaffected), and takes tokens once it is back; the keys are read through the
// upstream address guard; unknown key ids never make it read the keys more often than the floor.
import t from 'tap';
import { importJWK, SignJWT } from 'jose';
import { eventually } from '../helpers/eventually.js';
import { startTestGateway } from '../helpers/gateway.js';
import { activeServer, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { startOidcProvider, type TestClient } from '../helpers/oidc-provider.js';
import { freeLoopbackPort } from '../helpers/ports.js';

const CLIENTS: TestClient[] = [
  { id: 'alice', secret: 'a-client-secret-of-enough-length-0123456789', claims: { groups: ['viewer'], gateway_project: 'default' } },
];

t.test('issuer down at start: metadata served, tokens refused, API keys fine; once up, tokens work', async (t) => {
  const idp = await startOidcProvider(t, CLIENTS, { port: await freeLoopbackPort(), listen: false });
  const px = await startProxyGateway(t, { GATEWAY_OIDC_ISSUER: idp.issuer, GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS: '1' });
  const { gw } = px;
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const resource = `${gw.url}/api/v1/mcp/proxy`;

  const meta = await gw.api('GET', '/.well-known/oauth-protected-resource/api/v1/mcp/proxy', { token: null });
  t.equal(meta.status, 200);
  t.same(meta.body.authorization_servers, [idp.issuer]);
  const byKey = await px.callTool(server.id, 'get_weather', { city: 'Paris' }, { token: await gw.key('viewer') });
  t.equal(byKey.status, 200, 'API keys keep working');
  t.notOk(byKey.body.error);

  await idp.start();
  const token = await idp.token('alice', resource);
  await idp.stop();
  const calls = up.calls();
  const refused = await px.callTool(server.id, 'get_weather', { city: 'Paris' }, { token });
  t.equal(refused.status, 401);
  t.match(
    refused.headers.get('www-authenticate'),
    /error="invalid_token", error_description="the issuer's signing keys cannot be read right now/,
  );
  t.equal(up.calls(), calls, 'nothing forwarded');

  await idp.start();
  t.ok(
    await eventually(async () => (await px.callTool(server.id, 'get_weather', { city: 'Paris' }, { token })).status === 200),
    'accepted once the keys are read',
  );
  t.equal(up.calls(), calls + 1);
});

t.test('the issuer is reached through the upstream address guard', async (t) => {
  const idp = await startOidcProvider(t, CLIENTS);
  // Loopback is not in GATEWAY_UPSTREAM_ALLOW here: the guard refuses the issuer like any upstream.
  const gw = await startTestGateway(t, { env: { GATEWAY_OIDC_ISSUER: idp.issuer } });
  const token = await idp.token('alice', `${gw.url}/api/v1/mcp/proxy`);
  const res = await gw.api('GET', '/api/v1/agents', { token });
  t.equal(res.status, 401);
  t.match(res.body.error.message, /signing keys cannot be read right now .*upstream_url_forbidden/);
  t.equal(idp.jwksReads(), 0, 'the key set was never read');
});

t.test('no issuer configured: no protected resource metadata, JWTs are not taken', async (t) => {
  const gw = await startTestGateway(t);
  const res = await gw.api('GET', '/.well-known/oauth-protected-resource', { token: null });
  t.equal(res.status, 404);
  const jwtLike = await gw.api('GET', '/api/v1/agents', { token: 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln' });
  t.equal(jwtLike.status, 401);
  t.equal(jwtLike.headers.get('www-authenticate'), null);
});

t.test('the refresh floor: unknown key ids do not make the gateway read the key set again within it', async (t) => {
  const idp = await startOidcProvider(t, CLIENTS);
  const gw = await startTestGateway(t, {
    env: { GATEWAY_OIDC_ISSUER: idp.issuer, GATEWAY_UPSTREAM_ALLOW: '127.0.0.0/8', GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS: '3600' },
  });
  const resource = `${gw.url}/api/v1/mcp/proxy`;
  const good = await idp.token('alice', resource);
  t.ok(await eventually(async () => (await gw.api('GET', '/api/v1/agents', { token: good })).status === 200), 'keys read');
  const reads = idp.jwksReads();
  const unknown = { ...idp.keys()[0]!, kid: 'never-published' };
  const now = Math.floor(Date.now() / 1000);
  for (let i = 0; i < 5; i += 1) {
    const forged = await new SignJWT({ iss: idp.issuer, aud: resource, sub: `x${i}`, exp: now + 300, gateway_project: 'default' })
      .setProtectedHeader({ alg: 'RS256', kid: unknown.kid })
      .sign(await importJWK(unknown, 'RS256'));
    const res = await gw.api('GET', '/api/v1/agents', { token: forged });
    t.equal(res.status, 401);
    t.match(res.body.error.message, /signing key is not among the issuer's current keys/);
  }
  t.equal(idp.jwksReads(), reads, 'no read of the key set within the floor');
});
