// The MCP proxy as an OAuth 2.1 resource server, against a real OpenID provider (oidc-provider on
// 127.0.0.1): a token it issues for this gateway's resource calls a tool as an SDK client would;
// API keys keep working beside tokens; every bad token is refused 401 (403 for a missing scope)
// with the challenge and a description naming what is wrong, and nothing reaches the upstream or
// the ledger. Hand-made tokens appear only in the negative cases the provider would never issue.
import { createPublicKey } from 'node:crypto';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { base64url, importJWK, type JWK, SignJWT } from 'jose';
import { eventually } from '../helpers/eventually.js';
import { activeServer, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { startOidcProvider, type TestClient } from '../helpers/oidc-provider.js';

const SECRET = 'a-client-secret-of-enough-length-0123456789';
const CLIENTS: TestClient[] = [
  { id: 'alice', secret: SECRET, claims: { name: 'Alice Example', groups: ['gw-devs', 'staff'], gateway_project: 'default' } },
  { id: 'reader', secret: SECRET, scope: 'mcp:other', claims: { groups: ['gw-devs'], gateway_project: 'default' } },
  { id: 'nobody', secret: SECRET, claims: { groups: ['staff'], gateway_project: 'default' } },
  { id: 'lost', secret: SECRET, claims: { groups: ['gw-devs'], gateway_project: 'no-such-project' } },
];

const idp = await startOidcProvider(t, CLIENTS);
const stranger = await startOidcProvider(t, CLIENTS);
const px = await startProxyGateway(t, {
  GATEWAY_OIDC_ISSUER: idp.issuer,
  GATEWAY_OIDC_REQUIRED_SCOPES: 'mcp:tools',
  GATEWAY_OIDC_GROUP_ROLES: 'gw-devs=editor',
  GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS: '1',
});
const { gw } = px;
const up = await startCountingServer(t);
const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
const RESOURCE = `${gw.url}/api/v1/mcp/proxy`;
const METADATA = `${gw.url}/.well-known/oauth-protected-resource/api/v1/mcp/proxy`;

async function traceCount(): Promise<number> {
  const [row] = await gw.db<{ n: number }[]>`select count(*)::int as n from traces`;
  return row!.n;
}

/** A token signed with the provider's current private key, claims as given (for cases it would never issue). */
async function handMade(claims: Record<string, unknown>, key: JWK = idp.keys()[0]!): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    iss: idp.issuer,
    aud: RESOURCE,
    sub: 'alice',
    iat: now,
    exp: now + 300,
    scope: 'mcp:tools',
    gateway_project: 'default',
    groups: ['gw-devs'],
    ...claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: key.kid!, typ: 'at+jwt' })
    .sign(await importJWK(key, 'RS256'));
}

/** Calls get_weather with `token`; asserts the refusal, its challenge, and that nothing went anywhere. */
async function refused(t: Test, token: string, description: RegExp, status = 401): Promise<void> {
  const [calls, traces] = [up.calls(), await traceCount()];
  const res = await px.callTool(server.id, 'get_weather', { city: 'Paris' }, { token });
  t.equal(res.status, status, `${status}: ${res.text}`);
  const challenge = res.headers.get('www-authenticate') ?? '';
  t.match(challenge, /^Bearer /);
  t.ok(challenge.includes(`resource_metadata="${METADATA}"`), challenge);
  t.match(challenge, status === 401 ? /error="invalid_token"/ : /error="insufficient_scope"/);
  t.match(challenge, description, 'error_description says what is wrong');
  t.match(res.body.error.message, description, 'so does the error body');
  t.equal(up.calls(), calls, 'the upstream saw nothing');
  t.equal(await traceCount(), traces, 'no trace was written');
}

t.test('protected resource metadata (RFC 9728) at the root and under the proxy path', async (t) => {
  for (const path of ['', '/api/v1/mcp/proxy', `/api/v1/mcp/proxy/${server.id}`]) {
    const res = await gw.api('GET', `/.well-known/oauth-protected-resource${path}`, { token: null });
    t.equal(res.status, 200, path);
    t.same(res.body, {
      resource: RESOURCE,
      authorization_servers: [idp.issuer],
      scopes_supported: ['mcp:tools'],
      bearer_methods_supported: ['header'],
      resource_name: 'governance-gateway MCP proxy',
    });
  }
});

t.test('without a token the proxy answers 401 with the challenge naming the metadata', async (t) => {
  const res = await px.callTool(server.id, 'get_weather', { city: 'Paris' }, { token: null });
  t.equal(res.status, 401);
  t.equal(res.headers.get('www-authenticate'), `Bearer resource_metadata="${METADATA}", scope="mcp:tools"`);
  const wrongKey = await px.callTool(server.id, 'get_weather', { city: 'Paris' }, { token: 'ggk_not-a-key' });
  t.equal(wrongKey.status, 401);
  t.match(wrongKey.headers.get('www-authenticate'), /resource_metadata=/, 'an unknown API key too');
  const elsewhere = await gw.api('GET', '/api/v1/agents', { token: null });
  t.equal(elsewhere.status, 401);
  t.equal(elsewhere.headers.get('www-authenticate'), null, 'routes outside the proxy carry no challenge');
});

t.test('a token the provider issued for this resource calls a tool through the proxy (SDK client)', async (t) => {
  const token = await idp.token('alice', RESOURCE);
  const client = new Client({ name: 'oauth-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${RESOURCE}/${server.id}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.teardown(() => client.close());
  const before = up.calls();
  const result = await client.callTool({ name: 'get_weather', arguments: { city: 'Paris' } });
  t.same(result.content, [{ type: 'text', text: '{"city":"Paris"}' }]);
  t.equal(up.calls(), before + 1);
  await px.proxy.outcomes.flush();
  const [trace] = await gw.db<{ credential_id: string; subject: unknown }[]>`
    select c.body->>'credential_id' as credential_id, c.body->'subject' as subject from traces t join trace_content c on c.trace_id = t.id
    where t.trace_type = 'MCP_TOOL_CALL' order by t.sequence_num desc limit 1`;
  t.match(trace?.credential_id, /^oidc:[0-9a-f]{32}$/, 'the call is recorded under the subject');
  t.same(trace?.subject, { issuer: idp.issuer, sub: 'alice', name: 'Alice Example' }, 'the trace names the subject');
});

t.test('an admin action by a token: the admin log names the subject', async (t) => {
  const token = await idp.token('alice', RESOURCE);
  const created = await gw.api('POST', '/api/v1/agents', { token, body: { name: 'by-alice', protection_profile: 'safe' } });
  t.equal(created.status, 201, created.text);
  t.equal(created.body.created_by, 'Alice Example');
  const id = created.body.id as string;
  t.equal((await gw.api('PATCH', `/api/v1/agents/${id}`, { token, body: { description: 'hers' } })).status, 200);
  const [row] = await gw.db<{ actor_kind: string; actor_id: string; credential_id: string }[]>`
    select actor_kind, actor_id, credential_id from admin_log where target_id = ${id} and action = 'agent.update'`;
  t.same(row, { actor_kind: 'oidc', actor_id: 'Alice Example', credential_id: row?.credential_id });
  t.match(row?.credential_id, /^oidc:[0-9a-f]{32}$/);
  for (const stream of ['traces', 'admin']) {
    const chain = await gw.api('GET', `/api/v1/ledger/verify-chain?stream=${stream}`);
    t.equal(chain.body.intact, true, `the ${stream} chain is intact with the subject recorded`);
  }
});

t.test('API keys keep working beside tokens', async (t) => {
  const res = await px.callTool(server.id, 'get_weather', { city: 'Oslo' }, { token: await gw.key('viewer') });
  t.equal(res.status, 200);
  t.notOk(res.body.error, res.text);
});

t.test('refused tokens, each with a clear reason', async (t) => {
  const now = Math.floor(Date.now() / 1000);
  const header = (h: object) => base64url.encode(JSON.stringify(h));
  const payload = base64url.encode(
    JSON.stringify({ iss: idp.issuer, aud: RESOURCE, sub: 'alice', exp: now + 300, scope: 'mcp:tools', gateway_project: 'default' }),
  );
  await t.test('alg none', (t) =>
    refused(t, `${header({ alg: 'none', typ: 'JWT' })}.${payload}.`, /algorithm this gateway does not accept/),
  );
  await t.test('HS256 signed with the provider public key', async (t) => {
    const pem = createPublicKey({ key: idp.keys()[0]! as Record<string, string>, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
    const hs = await new SignJWT(JSON.parse(Buffer.from(payload, 'base64url').toString()))
      .setProtectedHeader({ alg: 'HS256', kid: idp.keys()[0]!.kid! })
      .sign(new TextEncoder().encode(String(pem)));
    await refused(t, hs, /algorithm this gateway does not accept/);
  });
  await t.test("another resource's token (issued by the provider)", async (t) =>
    refused(t, await idp.token('alice', 'https://other.example.com/mcp'), /not for this resource: aud must be http/),
  );
  await t.test('a wrong audience', async (t) => refused(t, await handMade({ aud: `${RESOURCE}x` }), /not for this resource/));
  await t.test('no audience', async (t) => refused(t, await handMade({ aud: undefined }), /lacks the aud claim|not for this resource/));
  await t.test('expired', async (t) => refused(t, await handMade({ iat: now - 600, exp: now - 120 }), /has expired/));
  await t.test('not yet valid', async (t) => refused(t, await handMade({ nbf: now + 600 }), /not yet valid/));
  await t.test('an unknown issuer (another real provider)', async (t) =>
    refused(t, await stranger.token('alice', RESOURCE), new RegExp(`issued by .*${stranger.port}.*not by`)),
  );
  await t.test('a signature that does not verify', async (t) => {
    const good = await idp.token('alice', RESOURCE);
    const [h, p] = good.split('.');
    const other = (await idp.token('alice', RESOURCE)).split('.')[2];
    await refused(t, `${h}.${p}.${other}`, /signature does not verify/);
  });
  await t.test('a token without the required scope: 403 insufficient_scope', async (t) =>
    refused(t, await idp.token('reader', RESOURCE, 'mcp:other'), /lacks the scope mcp:tools/, 403),
  );
  await t.test('a project that does not exist', async (t) =>
    refused(t, await idp.token('lost', RESOURCE), /no-such-project.*does not exist/),
  );
  await t.test('no role: 403 forbidden', async (t) => {
    const res = await px.callTool(server.id, 'get_weather', { city: 'Paris' }, { token: await idp.token('nobody', RESOURCE) });
    t.equal(res.status, 403);
    t.equal(res.body.error.code, 'forbidden');
  });
});

t.test('key rotation: a new key is fetched on its unknown kid; a token of the removed key is then refused', async (t) => {
  const old = await idp.token('alice', RESOURCE);
  t.equal((await px.callTool(server.id, 'get_weather', { city: 'Rome' }, { token: old })).status, 200);
  await idp.rotate();
  const fresh = await idp.token('alice', RESOURCE);
  // The first try may fall within the refresh floor (1 s) of the last read: it is retried until past it.
  const accepted = await eventually(
    async () => (await px.callTool(server.id, 'get_weather', { city: 'Rome' }, { token: fresh })).status === 200,
  );
  t.ok(accepted, 'the token of the new key is accepted');
  await refused(t, old, /signing key is not among the issuer's current keys/);
});
