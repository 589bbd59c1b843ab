// The console's sign-in settings (daemon/config-console.ts): off without a client id; on, they need
// the issuer; the secret comes from a file read at start; every bad value stops the start naming it.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { ConfigError, loadConfig } from '../daemon/config.js';

const ISSUER = { GATEWAY_OIDC_ISSUER: 'https://idp.example.com/realms/acme' };

t.test('off without a client id; a client id alone is public, asking for openid', async (t) => {
  t.equal(loadConfig(ISSUER).consoleOidc, null);
  const c = loadConfig({ ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'gateway-console' }).consoleOidc!;
  t.same(c, { clientId: 'gateway-console', clientSecret: null, scopes: ['openid'], sessionMaxSeconds: 3600 });
  t.ok(Object.isFrozen(c));
  const s = loadConfig({ ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'c', GATEWAY_CONSOLE_OIDC_SCOPES: 'profile, groups' }).consoleOidc!;
  t.same(s.scopes, ['openid', 'profile', 'groups'], 'openid is always asked for');
});

t.test('the secret is read from its file at start', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-config-console-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'secret');
  await fs.writeFile(file, 'the-secret\n');
  const c = loadConfig({ ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'c', GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: file }).consoleOidc!;
  t.equal(c.clientSecret, 'the-secret');

  await fs.writeFile(file, '\n');
  t.throws(
    () => loadConfig({ ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'c', GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: file }),
    /GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: .* must hold the client secret/,
    'an empty file',
  );
  t.throws(
    () =>
      loadConfig({ ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'c', GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: path.join(dir, 'missing') }),
    /GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: cannot read .*ENOENT/,
    'a missing file',
  );
});

t.test('bad values stop the start, naming the variable', async (t) => {
  for (const [env, name] of [
    [{ GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'c' }, 'GATEWAY_CONSOLE_OIDC_CLIENT_ID: needs GATEWAY_OIDC_ISSUER'],
    [{ ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'a\u0007b' }, 'GATEWAY_CONSOLE_OIDC_CLIENT_ID: expected a client id'],
    [{ ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'c', GATEWAY_CONSOLE_OIDC_SCOPES: 'openid "x"' }, 'GATEWAY_CONSOLE_OIDC_SCOPES:'],
    [
      { ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: '/etc/hostname' },
      'GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: needs GATEWAY_CONSOLE_OIDC_CLIENT_ID',
    ],
  ] as const) {
    let caught: unknown = null;
    try {
      loadConfig(env);
    } catch (err) {
      caught = err;
    }
    t.ok(caught instanceof ConfigError, `${name}: a ConfigError`);
    t.match((caught as Error).message, `invalid configuration: ${name}`, name);
  }
});

t.test('the life of a session the provider opened: an hour unless set; a bad value stops the start', async (t) => {
  const on = { ...ISSUER, GATEWAY_CONSOLE_OIDC_CLIENT_ID: 'c' };
  t.equal(loadConfig({ ...on, GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS: '600' }).consoleOidc!.sessionMaxSeconds, 600);
  for (const bad of ['0', '-5', 'an hour', '1.5'])
    t.throws(
      () => loadConfig({ ...on, GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS: bad }),
      /^invalid configuration: GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS: /,
      `GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS=${bad}`,
    );
});
