// A client's blocked answer to a server's request on a token_exchange server
// (daemon/mcp/proxy/client-answer.ts): the gateway answers the server in the client's place, and it
// signs that answer in as it signs the call, with the caller's token exchanged (RFC 8693), never the
// caller's own token. Without a sign-in the server's request would stay unanswered until it gave up.
// Real parts: oidc-provider with the exchange grant, an SDK client that answers sampling, the
// hostile content server (an SDK server whose tool asks the client's model).
import t from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLOUD_KEY, startHostileContentServer } from '../../helpers/hostile-content-server.js';
import { activeServer, startProxyGateway } from '../../helpers/mcp-proxy.js';
import { startOidcProvider } from '../../helpers/oidc-provider.js';
import { TOKEN_EXCHANGE_GRANT } from '../../helpers/oidc-token-exchange.js';

const SECRET = 'a-client-secret-of-enough-length-0123456789';
const GATEWAY_SECRET = 'the-gateways-own-secret-at-the-provider-42';
const idp = await startOidcProvider(t, [
  { id: 'alice', secret: SECRET, claims: { name: 'alice', groups: ['gw-devs'], gateway_project: 'default' } },
  { id: 'gateway', secret: GATEWAY_SECRET, claims: {}, grants: ['client_credentials', TOKEN_EXCHANGE_GRANT] },
]);
const px = await startProxyGateway(t, {
  GATEWAY_OIDC_ISSUER: idp.issuer,
  GATEWAY_OIDC_GROUP_ROLES: 'gw-devs=editor',
  // A loaded machine once ran the detectors past the default budget (a refusal, fail closed): not what is tested here.
  GATEWAY_DETECTOR_BUDGET_MS: '600000',
  GATEWAY_INSPECTION_BUDGET_MS: '600000',
});
const up = await startHostileContentServer(t);
const auth = {
  auth_method: 'token_exchange',
  auth_config: { client_id: 'gateway', client_secret: GATEWAY_SECRET, resource: up.url, scope: 'mcp:tools' },
};
const server = await activeServer(px, up.url, { ask_model: 'ALLOW' }, { auth });

t.test("a blocked sampling answer reaches the server as a refusal, signed in with the caller's exchanged token", async (t) => {
  const callerToken = await idp.token('alice', `${px.url}/api/v1/mcp/proxy`);
  const client = new Client({ name: 'exchange-answers', version: '1.0.0' }, { capabilities: { sampling: {} } });
  client.setRequestHandler(CreateMessageRequestSchema, () => ({
    model: 'm',
    role: 'assistant',
    content: { type: 'text', text: `Run it with aws_access_key_id ${CLOUD_KEY}.` },
  }));
  client.onerror = () => {}; // the refused POST of its answer: tested in mcp-content.client-answers.test.ts
  const transport = new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`), {
    requestInit: { headers: { authorization: `Bearer ${callerToken}` } },
  });
  await client.connect(transport);
  t.teardown(() => client.close());

  const result = (await client.callTool({ name: 'ask_model', arguments: {} }, undefined, { timeout: 20_000 })) as {
    content: { text?: string }[];
  };
  t.match(result.content[0]?.text, /sampling failed: .*-32003.*answer was withheld by the gateway/, 'the server got the refusal');
  t.notMatch(JSON.stringify(up.samplingAnswers), CLOUD_KEY, 'never the key');

  const answers = up.seen.filter((s) => s.rpcMethod === undefined && (s.body as { error?: unknown } | null)?.error !== undefined);
  t.equal(answers.length, 1, "one answer in the client's place");
  const bearer = /^Bearer (\S+)$/.exec(String(answers[0]?.headers.authorization ?? ''))?.[1];
  const issued = idp.exchange.seen.filter((e) => e.sub === 'alice').map((e) => e.issued);
  t.ok(bearer !== undefined && issued.includes(bearer), "signed in with a token the provider issued in exchange for alice's");
  t.not(bearer, callerToken, "never the caller's own token");
});
