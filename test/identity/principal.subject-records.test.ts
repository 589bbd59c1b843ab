// Who a token names is kept where people look for it: a verify call by an access token records the
// subject in its trace (as MCP call traces do), and an approval request opened by a token's held
// call names the person (GET /api/v1/approvals and /{id}: requested_by_subject), while a key's
// request names none. Real OpenID provider (oidc-provider on 127.0.0.1), daemon and upstream.
import t from 'tap';
import { activeServer, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { startOidcProvider, type TestClient } from '../helpers/oidc-provider.js';

const SECRET = 'a-client-secret-of-enough-length-0123456789';
const CLIENTS: TestClient[] = [
  { id: 'alice', secret: SECRET, claims: { name: 'Alice Example', groups: ['gw-devs'], gateway_project: 'default' } },
];

const idp = await startOidcProvider(t, CLIENTS);
const px = await startProxyGateway(t, {
  GATEWAY_OIDC_ISSUER: idp.issuer,
  GATEWAY_OIDC_REQUIRED_SCOPES: 'mcp:tools',
  GATEWAY_OIDC_GROUP_ROLES: 'gw-devs=editor',
});
const { gw } = px;
const RESOURCE = `${gw.url}/api/v1/mcp/proxy`;
const ALICE = { issuer: idp.issuer, sub: 'alice', name: 'Alice Example' };

t.test('a verify call by a token records its subject in the trace; the chain stays intact', async (t) => {
  const token = await idp.token('alice', RESOURCE);
  const res = await gw.api('POST', '/api/v1/verify', { token, body: { prompt: 'What is the capital of Norway?' } });
  t.equal(res.status, 200, res.text);
  const [row] = await gw.db<{ subject: unknown }[]>`
    select c.body -> 'subject' as subject from trace_content c where c.trace_id = ${res.body.trace_id as string}`;
  t.same(row?.subject, ALICE, 'the verify trace names the subject');
  const byKey = await gw.api('POST', '/api/v1/verify', { token: await gw.key('editor'), body: { prompt: 'And of Sweden?' } });
  const [keyRow] = await gw.db<{ subject: unknown }[]>`
    select c.body -> 'subject' as subject from trace_content c where c.trace_id = ${byKey.body.trace_id as string}`;
  t.equal(keyRow?.subject, null, "a key's trace names no subject");
  const chain = await gw.api('GET', '/api/v1/ledger/verify-chain?stream=traces');
  t.equal(chain.body.intact, true);
});

t.test("an approval opened by a token's held call names the person; one opened by a key does not", async (t) => {
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { delete_file: 'REQUIRE_APPROVAL' });
  const token = await idp.token('alice', RESOURCE);
  const held = await px.callTool(server.id, 'delete_file', { path: '/srv/hers' }, { token });
  const id = held.body?.error?.data?.approval_id as string;
  t.type(id, 'string', held.text);
  const one = await gw.api('GET', `/api/v1/approvals/${id}`);
  t.equal(one.status, 200, one.text);
  t.same(one.body.requested_by_subject, ALICE, 'GET /approvals/{id} names the person');
  t.match(one.body.credential_id, /^oidc:[0-9a-f]{32}$/);

  const byKey = await px.callTool(server.id, 'delete_file', { path: '/srv/keys' }, { token: await gw.key('editor') });
  const keyId = byKey.body?.error?.data?.approval_id as string;
  t.type(keyId, 'string', byKey.text);
  const list = await gw.api('GET', '/api/v1/approvals');
  const shown = new Map((list.body.approvals as { id: string; requested_by_subject: unknown }[]).map((a) => [a.id, a]));
  t.same(shown.get(id)?.requested_by_subject, ALICE, 'the open list names her too');
  t.equal(shown.get(keyId)?.requested_by_subject, null, "a key's request names no person");
});
