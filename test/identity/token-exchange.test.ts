// Upstream identity by token exchange (RFC 8693), against a real OpenID provider (oidc-provider on
// 127.0.0.1, its exchange grant registered by the test helper) and a real upstream MCP server that
// validates the bearer it gets against the provider's keys (aud = its own resource) and reports the
// subject it saw: the upstream sees the person, never the caller's own token; a subject's token is
// exchanged once and then cached; a token about to expire is exchanged again; an API key caller,
// a refused exchange and an unreachable provider are refused with nothing forwarded; and the
// exchanged token appears in no log line, database row or API answer.
import type http from 'node:http';
import t, { type Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { ApiResponse } from '../helpers/gateway.js';
import { activeServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { listen, sessionRouter } from '../helpers/mcp-servers.js';
import { startOidcProvider, type TestClient } from '../helpers/oidc-provider.js';
import { TOKEN_EXCHANGE_GRANT } from '../helpers/oidc-token-exchange.js';

const SECRET = 'a-client-secret-of-enough-length-0123456789';
const GATEWAY_SECRET = 'the-gateways-own-secret-at-the-provider-42';
const person = (id: string): TestClient => ({ id, secret: SECRET, claims: { name: id, groups: ['gw-devs'], gateway_project: 'default' } });
const CLIENTS: TestClient[] = [
  person('alice'),
  person('bob'),
  person('carol'),
  person('dave'),
  person('erin'),
  person('frank'),
  { id: 'gateway', secret: GATEWAY_SECRET, claims: {}, grants: ['client_credentials', TOKEN_EXCHANGE_GRANT] },
];

const idp = await startOidcProvider(t, CLIENTS);
const px = await startProxyGateway(t, { GATEWAY_OIDC_ISSUER: idp.issuer, GATEWAY_OIDC_GROUP_ROLES: 'gw-devs=editor' });
const { gw } = px;
const RESOURCE = `${gw.url}/api/v1/mcp/proxy`;

/** Every bearer the upstream was sent, and the subject of each it accepted. */
const bearersSeen: string[] = [];
const subjectsSeen: string[] = [];
/** Every answer the gateway gave the tests' callers, for the final grep. */
const answers: string[] = [];

/** An upstream that accepts only a token of the provider for its own resource and says whose it is. */
async function startCheckingUpstream(t: Test) {
  const jwks = createRemoteJWKSet(new URL(`${idp.issuer}/jwks`));
  const build = () => {
    const mcp = new McpServer({ name: 'checking', version: '1.0.0' });
    mcp.server.registerCapabilities({ tools: {} });
    mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [{ name: 'whoami', description: 'Names the caller.', inputSchema: { type: 'object' } }],
    }));
    mcp.server.setRequestHandler(CallToolRequestSchema, (_req, extra) => ({
      content: [{ type: 'text', text: String(extra.authInfo?.extra?.sub) }],
    }));
    return mcp;
  };
  const route = sessionRouter(t, build, { response: 'json' });
  const running = await listen(t, async (req: http.IncomingMessage & { auth?: unknown }, res, body) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    bearersSeen.push(token);
    let sub: string;
    try {
      const { payload } = await jwtVerify(token, jwks, { issuer: idp.issuer, audience: running.url });
      sub = String(payload.sub);
    } catch {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end('{"error":"invalid_token"}');
      return;
    }
    subjectsSeen.push(sub);
    req.auth = { token, clientId: 'gateway', scopes: [], extra: { sub } };
    await route(req, res, body);
  });
  return { ...running, calls: () => running.seen.filter((s) => s.rpcMethod === 'tools/call').length };
}

const up = await startCheckingUpstream(t);
const exchangeConfig = { client_id: 'gateway', client_secret: GATEWAY_SECRET, resource: up.url, scope: 'mcp:tools' };
const server = await activeServer(
  px,
  up.url,
  { whoami: 'ALLOW' },
  { auth: { auth_method: 'token_exchange', auth_config: exchangeConfig } },
);

async function whoami(token: string): Promise<ApiResponse> {
  const res = await px.callTool(server.id, 'whoami', {}, { token });
  answers.push(res.text, JSON.stringify(Object.fromEntries(res.headers)));
  return res;
}

const exchangesBy = (sub: string) => idp.exchange.seen.filter((e) => e.sub === sub).length;

t.test('the scan signed in as the gateway itself (client credentials): a scan has no caller to exchange for', async (t) => {
  t.ok(subjectsSeen.length > 0 && subjectsSeen.every((s) => s === 'gateway'), `the scan's requests: ${subjectsSeen.join(', ')}`);
  t.equal(idp.exchange.seen.length, 0, 'no exchange without a caller');
});

t.test('the upstream sees the person: the caller token exchanged for one of its own resource', async (t) => {
  const aliceToken = await idp.token('alice', RESOURCE);
  const before = up.calls();
  const res = await whoami(aliceToken);
  t.equal(res.status, 200, res.text);
  t.same(res.body.result?.content, [{ type: 'text', text: 'alice' }], 'the upstream saw alice');
  t.equal(up.calls(), before + 1);
  const [exchange] = idp.exchange.seen;
  t.match(exchange, { clientId: 'gateway', sub: 'alice', resource: up.url, scope: 'mcp:tools' }, 'exchanged as the gateway client');
  t.equal(bearersSeen.at(-1), exchange?.issued, 'the upstream got the exchanged token');
  t.notOk(bearersSeen.includes(aliceToken), "the caller's own token never went upstream");
});

t.test("an MCP client's own session (relay) goes upstream as the person too", async (t) => {
  const token = await idp.token('erin', RESOURCE);
  const client = new Client({ name: 'exchange-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${RESOURCE}/${server.id}`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.teardown(() => client.close());
  const result = await client.callTool({ name: 'whoami', arguments: {} });
  t.same(result.content, [{ type: 'text', text: 'erin' }]);
  t.equal(exchangesBy('erin'), 1, 'initialize, notifications, tools/call: one exchange, then the cache');
});

t.test('a second call of the same subject uses the cached token; another subject gets its own', async (t) => {
  const exchanges = idp.exchange.seen.length;
  const again = await whoami(await idp.token('alice', RESOURCE));
  t.same(again.body.result?.content, [{ type: 'text', text: 'alice' }]);
  t.equal(idp.exchange.seen.length, exchanges, 'the provider saw no second exchange for alice');
  const bob = await whoami(await idp.token('bob', RESOURCE));
  t.same(bob.body.result?.content, [{ type: 'text', text: 'bob' }], 'bob is not served alice’s token');
  t.equal(exchangesBy('bob'), 1);
});

t.test("a subject's first calls made side by side share one exchange", async (t) => {
  const token = await idp.token('frank', RESOURCE);
  const answers = await Promise.all([whoami(token), whoami(token), whoami(token)]);
  for (const res of answers) t.same(res.body.result?.content, [{ type: 'text', text: 'frank' }], res.text);
  t.equal(exchangesBy('frank'), 1, 'the provider saw one exchange for three concurrent calls');
});

t.test('a token near its expiry is exchanged again', async (t) => {
  // Issued for 20 s, within the 30 s renewal margin: expired for reuse at once.
  idp.exchange.ttl(20);
  t.teardown(() => idp.exchange.ttl(300));
  const token = await idp.token('carol', RESOURCE);
  for (let i = 0; i < 2; i += 1) t.same((await whoami(token)).body.result?.content, [{ type: 'text', text: 'carol' }]);
  t.equal(exchangesBy('carol'), 2, 'each call exchanged anew');
  idp.exchange.ttl(300);
  await whoami(token);
  await whoami(token);
  t.equal(exchangesBy('carol'), 3, 'a fresh token is then reused');
});

t.test('an API key caller is refused: it has no identity to exchange, and there is no shared secret', async (t) => {
  const key = await gw.key('editor');
  const [calls, seen, exchanges] = [up.calls(), up.seen.length, idp.exchange.seen.length];
  const res = await whoami(key);
  t.equal(res.status, 403, res.text);
  t.equal(res.body.error.code, -32008);
  t.match(res.body.error.data, {
    reason: 'UPSTREAM_AUTH_UNAVAILABLE',
    auth_method: 'token_exchange',
    kind: 'token_exchange_needs_access_token',
  });
  t.match(res.body.error.message, /API key has no identity/);
  const list = await px.rpc(server.id, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { token: key });
  answers.push(list.text);
  t.equal(list.status, 403, 'any other method too');
  t.equal(list.body.error.data.kind, 'token_exchange_needs_access_token');
  t.equal(up.seen.length, seen, 'nothing reached the upstream');
  t.equal(up.calls(), calls);
  t.equal(idp.exchange.seen.length, exchanges, 'nothing was exchanged');
});

t.test('a refused exchange refuses the call, recorded as its outcome; nothing forwarded', async (t) => {
  idp.exchange.refuse('dave may not reach this audience');
  t.teardown(() => idp.exchange.refuse(null));
  const seen = up.seen.length;
  const res = await whoami(await idp.token('dave', RESOURCE));
  t.equal(res.status, 403, res.text);
  t.equal(res.body.error.code, -32008);
  t.equal(res.body.error.data.kind, 'token_exchange_refused');
  t.match(res.body.error.data.detail, /refused the token request: invalid_grant/, "the provider's answer");
  t.equal(up.seen.length, seen, 'nothing reached the upstream');
  const traceId = res.body.error.data.trace_id as string;
  await px.proxy.outcomes.flush();
  const [outcome] = await gw.db<{ outcome: string; rpc_code: number; upstream_status: number | null }[]>`
    select outcome, rpc_code, upstream_status from mcp_call_outcomes where trace_id = ${traceId}`;
  t.same(outcome, { outcome: 'token_exchange_refused', rpc_code: -32008, upstream_status: null }, 'recorded under the decision trace');
  const rpc = await px.rpc(server.id, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { token: await idp.token('dave', RESOURCE) });
  answers.push(rpc.text);
  t.equal(rpc.body.error?.data?.kind, 'token_exchange_refused', 'another method is refused the same way');
  t.equal(up.seen.length, seen);
});

t.test('the provider unreachable: the call is refused, nothing forwarded', async (t) => {
  const token = await idp.token('dave', RESOURCE);
  await idp.stop();
  t.teardown(() => idp.start());
  const seen = up.seen.length;
  const res = await whoami(token);
  t.equal(res.status, 403, res.text);
  t.equal(res.body.error.data.kind, 'token_exchange_unreachable');
  t.equal(up.seen.length, seen, 'nothing reached the upstream');
});

t.test('bad token exchange settings are refused 400 and change nothing', async (t) => {
  const before = await gw.db`select auth_method, auth_config, updated_at from mcp_servers where id = ${server.id}`;
  const bad: [unknown, RegExp][] = [
    [{ auth_method: 'token_exchange', auth_config: { client_id: 'gateway', resource: up.url } }, /client_secret/],
    [{ auth_method: 'token_exchange', auth_config: { client_id: 'gateway', client_secret: 's' } }, /resource or audience/],
    [{ auth_method: 'token_exchange' }, /auth_config/],
    [{ auth_method: 'token_exchange', auth_config: { ...exchangeConfig, resource: 'ftp://x.example/mcp' } }, /resource/],
    [{ auth_method: 'token_exchange', auth_config: { ...exchangeConfig, scope: 'a  b' } }, /scope/],
    // A new auth_config alone must still hold the exchange's settings.
    [{ auth_config: { client_id: 'gateway', client_secret: 's' } }, /resource or audience/],
  ];
  for (const [body, message] of bad) {
    const res = await gw.api('PATCH', `/api/v1/mcp/servers/${server.id}`, { body });
    answers.push(res.text);
    t.equal(res.status, 400, JSON.stringify(body));
    t.equal(res.body.error.code, 'validation_error');
    t.match(JSON.stringify(res.body.error), message);
  }
  t.same(await gw.db`select auth_method, auth_config, updated_at from mcp_servers where id = ${server.id}`, before, 'nothing written');
});

t.test('the exchanged tokens and the gateway secret appear in no log, row or answer', async (t) => {
  const issued = idp.exchange.seen.map((e) => e.issued).filter((x): x is string => x !== null);
  t.ok(issued.length >= 5, `${issued.length} tokens were issued`);
  const listing = await gw.api('GET', '/api/v1/mcp/servers');
  const one = await gw.api('GET', `/api/v1/mcp/servers/${server.id}`);
  const traces = await gw.api('GET', '/api/v1/traces?limit=100');
  t.equal(one.body.auth_method, 'token_exchange');
  answers.push(listing.text, one.text, traces.text);
  const tables = await gw.db<{ table_name: string }[]>`
    select table_name from information_schema.tables where table_schema = current_schema() and table_type = 'BASE TABLE'`;
  const rows: string[] = [];
  for (const { table_name } of tables) {
    const [dump] = await gw.db<{ text: string | null }[]>`select json_agg(x)::text as text from ${gw.db(table_name)} x`;
    rows.push(dump?.text ?? '');
  }
  const places = { logs: gw.logLines.join('\n'), database: rows.join('\n'), answers: answers.join('\n') };
  for (const [place, text] of Object.entries(places)) {
    t.ok(text.length > 0, `${place} were read`);
    t.notOk(
      issued.some((token) => text.includes(token)),
      `no exchanged token in the ${place}`,
    );
    t.notOk(text.includes(GATEWAY_SECRET), `the gateway's client secret is not in the ${place}`);
  }
});
