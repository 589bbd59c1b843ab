import t from 'tap';
import { ConfigError, loadConfig } from '../daemon/config.js';

t.test('identity is off without GATEWAY_OIDC_ISSUER; other OIDC settings alone turn nothing on', async (t) => {
  t.equal(loadConfig({}).identity, null);
  t.equal(loadConfig({ GATEWAY_OIDC_REQUIRED_SCOPES: 'mcp' }).identity, null);
});

t.test('defaults once an issuer is named', async (t) => {
  const id = loadConfig({ GATEWAY_OIDC_ISSUER: 'https://idp.example.com/realms/acme' }).identity!;
  t.equal(id.issuer, 'https://idp.example.com/realms/acme');
  t.equal(id.resource, null, 'derived from the public URL once listening');
  t.same(id.requiredScopes, []);
  t.same(id.algorithms, ['RS256', 'PS256', 'ES256', 'EdDSA']);
  t.same(id.projectClaim, ['gateway_project']);
  t.equal(id.defaultProject, null);
  t.same(id.roleClaim, ['groups']);
  t.equal(id.groupRoles.size, 0);
  t.equal(id.agentClaim, null);
  t.same(id.nameClaim, ['name']);
  t.equal(id.clockSkewSeconds, 30);
  t.equal(id.jwksRefreshFloorMs, 30_000);
  t.ok(Object.isFrozen(id));
});

t.test('values are parsed', async (t) => {
  const id = loadConfig({
    GATEWAY_OIDC_ISSUER: 'http://127.0.0.1:4000',
    GATEWAY_OIDC_RESOURCE: 'https://gw.example.com/api/v1/mcp/proxy',
    GATEWAY_OIDC_REQUIRED_SCOPES: 'mcp:tools, mcp:read',
    GATEWAY_OIDC_ALGORITHMS: 'ES256',
    GATEWAY_OIDC_PROJECT_CLAIM: 'ext.project',
    GATEWAY_OIDC_DEFAULT_PROJECT: 'default',
    GATEWAY_OIDC_ROLE_CLAIM: 'realm_access.roles',
    GATEWAY_OIDC_GROUP_ROLES: 'gw-admins=admin, gw-devs=editor,cn=ops=viewer',
    GATEWAY_OIDC_AGENT_CLAIM: 'azp',
    GATEWAY_OIDC_NAME_CLAIM: 'preferred_username',
    GATEWAY_OIDC_CLOCK_SKEW_SECONDS: '5',
    GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS: '1',
  }).identity!;
  t.equal(id.resource, 'https://gw.example.com/api/v1/mcp/proxy');
  t.same(id.requiredScopes, ['mcp:tools', 'mcp:read']);
  t.same(id.algorithms, ['ES256']);
  t.same(id.projectClaim, ['ext', 'project']);
  t.equal(id.defaultProject, 'default');
  t.same(id.roleClaim, ['realm_access', 'roles']);
  t.same(
    [...id.groupRoles],
    [
      ['gw-admins', 'admin'],
      ['gw-devs', 'editor'],
      ['cn=ops', 'viewer'],
    ],
  );
  t.same(id.agentClaim, ['azp']);
  t.same(id.nameClaim, ['preferred_username']);
  t.equal(id.clockSkewSeconds, 5);
  t.equal(id.jwksRefreshFloorMs, 1000);
});

t.test('a wrong value stops the start naming the variable', async (t) => {
  const issuer = { GATEWAY_OIDC_ISSUER: 'https://idp.example.com' };
  const cases: [Record<string, string>, string][] = [
    [{ GATEWAY_OIDC_ISSUER: 'idp.example.com' }, 'GATEWAY_OIDC_ISSUER'],
    [{ GATEWAY_OIDC_ISSUER: 'https://idp.example.com/?tenant=1' }, 'GATEWAY_OIDC_ISSUER'],
    [{ GATEWAY_OIDC_ISSUER: 'https://user:pw@idp.example.com' }, 'GATEWAY_OIDC_ISSUER'],
    [{ ...issuer, GATEWAY_OIDC_RESOURCE: 'urn:gateway' }, 'GATEWAY_OIDC_RESOURCE'],
    [{ ...issuer, GATEWAY_OIDC_ALGORITHMS: 'HS256' }, 'GATEWAY_OIDC_ALGORITHMS'],
    [{ ...issuer, GATEWAY_OIDC_ALGORITHMS: 'none' }, 'GATEWAY_OIDC_ALGORITHMS'],
    [{ ...issuer, GATEWAY_OIDC_GROUP_ROLES: 'admins=root' }, 'GATEWAY_OIDC_GROUP_ROLES'],
    [{ ...issuer, GATEWAY_OIDC_GROUP_ROLES: 'admins' }, 'GATEWAY_OIDC_GROUP_ROLES'],
    [{ ...issuer, GATEWAY_OIDC_PROJECT_CLAIM: 'a..b' }, 'GATEWAY_OIDC_PROJECT_CLAIM'],
    [{ ...issuer, GATEWAY_OIDC_CLOCK_SKEW_SECONDS: '3600' }, 'GATEWAY_OIDC_CLOCK_SKEW_SECONDS'],
    [{ ...issuer, GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS: '0' }, 'GATEWAY_OIDC_JWKS_REFRESH_FLOOR_SECONDS'],
    [{ ...issuer, GATEWAY_OIDC_REQUIRED_SCOPES: 'a"b' }, 'GATEWAY_OIDC_REQUIRED_SCOPES'],
  ];
  for (const [env, name] of cases) {
    let thrown: unknown = null;
    try {
      loadConfig(env);
    } catch (err) {
      thrown = err;
    }
    t.ok(thrown instanceof ConfigError, `${JSON.stringify(env)} refused`);
    t.match((thrown as Error).message, new RegExp(`^invalid configuration: ${name}: `), `names ${name}`);
  }
});
