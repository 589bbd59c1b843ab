// Claims to caller: dotted claim paths (and a dotted name looked up whole), groups to the highest
// role, a token without a project refused unless a default is set; and through the proxy, the
// agent claim naming the agent in place of the X-Agent-Id header.
import t from 'tap';
import { loadConfig } from '../../daemon/config.js';
import { claimAt, identityOf, roleOf } from '../../daemon/identity/claims.js';
import { eventually } from '../helpers/eventually.js';
import { activeAgent, activeServer, callTraces, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { startOidcProvider } from '../helpers/oidc-provider.js';
import { freeLoopbackPort } from '../helpers/ports.js';

const config = (env: Record<string, string> = {}) => loadConfig({ GATEWAY_OIDC_ISSUER: 'https://idp.example.com', ...env }).identity!;

t.test('claim paths', async (t) => {
  const payload = { realm_access: { roles: ['a'] }, 'https://gw.example.com/roles': ['b'], flat: 'x' };
  t.same(claimAt(payload, ['realm_access', 'roles']), ['a']);
  t.same(claimAt(payload, ['https://gw', 'example', 'com/roles']), ['b'], 'a dotted name is looked up whole first');
  t.equal(claimAt(payload, ['flat', 'deeper']), undefined);
  t.equal(claimAt(payload, ['missing']), undefined);
});

t.test('roles: the highest granted, by the group map or by name', async (t) => {
  const map = new Map([
    ['gw-admins', 'admin' as const],
    ['gw-devs', 'editor' as const],
  ]);
  t.equal(roleOf(['staff', 'gw-devs'], map), 'editor');
  t.equal(roleOf(['gw-devs', 'gw-admins'], map), 'admin');
  t.equal(roleOf(['viewer'], map), 'viewer');
  t.equal(roleOf(['staff'], map), null);
});

t.test('identity: project claim or default, role from a space-separated string, name or sub', async (t) => {
  const c = config({ GATEWAY_OIDC_ROLE_CLAIM: 'roles', GATEWAY_OIDC_GROUP_ROLES: 'ops=admin' });
  const ok = identityOf({ sub: 'u1', gateway_project: 'p1', roles: 'staff ops', name: 'Una' }, c);
  t.same(ok, {
    ok: true,
    identity: { projectId: 'p1', role: 'admin', agentId: null, subject: { issuer: 'https://idp.example.com', sub: 'u1', name: 'Una' } },
  });
  t.match(identityOf({ sub: 'u1' }, c), { ok: false, description: /names no project \(claim gateway_project\)/ });
  t.match(identityOf({ sub: 'u1' }, config({ GATEWAY_OIDC_DEFAULT_PROJECT: 'p9' })), {
    ok: true,
    identity: { projectId: 'p9', subject: { name: 'u1' } },
  });
  t.match(identityOf({ sub: 'u1', gateway_project: ['p1'] }, c), { ok: false, description: /not a project id/ });
  t.match(identityOf({ gateway_project: 'p1' }, c), { ok: false, description: /no sub claim/ });
});

t.test('the agent claim names the agent of a proxied call', async (t) => {
  const port = await freeLoopbackPort();
  const px = await startProxyGateway(t, {
    GATEWAY_OIDC_ISSUER: `http://127.0.0.1:${port}`,
    GATEWAY_OIDC_AGENT_CLAIM: 'ext.agent',
    GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS: '1',
  });
  const agentId = await activeAgent(px.gw);
  const up = await startCountingServer(t);
  const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
  const idp = await startOidcProvider(
    t,
    [
      {
        id: 'bot',
        secret: 'a-client-secret-of-enough-length-0123456789',
        claims: { groups: ['viewer'], gateway_project: 'default', ext: { agent: agentId } },
      },
    ],
    { port },
  );
  const token = await idp.token('bot', `${px.url}/api/v1/mcp/proxy`);
  // The issuer was down when the daemon started: the keys are read on a call past the floor (1 s).
  const called = await eventually(async () => {
    const res = await px.callTool(server.id, 'get_weather', { city: 'Bern' }, { token });
    return res.status === 200 && !res.body.error;
  });
  t.ok(called, 'the call went through');
  const [trace] = (await callTraces(px.gw)).slice(-1);
  t.equal(trace?.agent_id, agentId, 'recorded under the agent the token names, without an X-Agent-Id header');
});
