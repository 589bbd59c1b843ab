// gatewayctl login --oidc against a real OpenID provider (oidc-provider on 127.0.0.1, device flow):
// the compiled CLI discovers the provider from the gateway, prints the code, a person confirms it
// in the provider's own pages (driven over HTTP as a browser would), and the CLI saves the tokens
// (0600, never printed); whoami names the person; an expired or refused access token is refreshed
// and written back; a revoked refresh token ends in "sign in again" (exit 2) and writes nothing;
// logout forgets the tokens.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { runCli, startCli } from '../../helpers/cli.js';
import { eventually } from '../../helpers/eventually.js';
import { activeServer, startCountingServer, startProxyGateway } from '../../helpers/mcp-proxy.js';
import { confirmDeviceCode } from '../../helpers/oidc-device-user.js';
import { CLI_CLIENT_ID, startOidcProvider } from '../../helpers/oidc-provider.js';

const idp = await startOidcProvider(t, [], {
  people: [{ id: 'carol', claims: { name: 'Carol Example', groups: ['gw-devs'], gateway_project: 'default' } }],
});
const px = await startProxyGateway(t, {
  GATEWAY_OIDC_ISSUER: idp.issuer,
  GATEWAY_OIDC_REQUIRED_SCOPES: 'mcp:tools',
  GATEWAY_OIDC_GROUP_ROLES: 'gw-devs=editor',
});
const { gw } = px;
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-oidc-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));
const config = path.join(home, 'conf', 'config.json');
const env = { GATEWAYCTL_CONFIG: config };

interface Saved {
  token: string;
  oidc: { issuer: string; client_id: string; refresh_token: string | null; expires_at: number | null; resource: string };
}
const saved = async (): Promise<Saved> => JSON.parse(await fs.readFile(config, 'utf8')).contexts.default as Saved;
async function edit(change: (s: Saved) => void): Promise<void> {
  const file = JSON.parse(await fs.readFile(config, 'utf8'));
  change(file.contexts.default);
  await fs.writeFile(config, JSON.stringify(file));
}
const now = () => Math.floor(Date.now() / 1000);

t.test('a person signs in by the device flow; the tokens are kept 0600 and never printed; whoami names them', async (t) => {
  const login = startCli(['login', '--url', gw.url, '--oidc'], home, env);
  let code = '';
  const shown = await eventually(() => {
    code = /enter the code (\S+)/.exec(login.output().stderr)?.[1] ?? '';
    return code !== '';
  }, 60_000);
  t.ok(shown, `the code is shown: ${JSON.stringify(login.output())}`);
  t.match(login.output().stderr, new RegExp(`open ${idp.issuer}/device `), 'with the verification page');
  const page = await confirmDeviceCode(idp.issuer, code, 'carol');
  t.match(page.text, /Sign-in Success/, 'the provider confirmed the device');
  const done = await login.done;
  t.equal(done.code, 0, done.stderr);
  t.match(
    done.stdout,
    /^Signed in to \S+ as Carol Example \(carol at http:\/\/127\.0\.0\.1:\d+\), role editor, project default \(default\)/,
  );

  t.equal((await fs.stat(config)).mode & 0o777, 0o600, 'the config file is private');
  const s = await saved();
  t.match(s.token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'the access token is saved');
  t.match(s.oidc, { issuer: idp.issuer, client_id: CLI_CLIENT_ID, resource: `${gw.url}/api/v1/mcp/proxy` });
  t.type(s.oidc.refresh_token, 'string', 'with its refresh token');
  t.ok(s.oidc.expires_at! > now(), 'and its expiry');
  for (const secret of [s.token, s.oidc.refresh_token!]) t.notOk(`${done.stdout}${done.stderr}`.includes(secret), 'no token printed');

  const who = await runCli(['whoami'], home, env);
  t.equal(who.code, 0, who.stderr);
  t.match(
    who.stdout,
    /^as: +Carol Example \(sub carol, signed in at http:\/\/127\.0\.0\.1:\d+\), role editor, credential oidc:[0-9a-f]{32}$/m,
  );
  const json = await runCli(['whoami', '--json'], home, env);
  t.match(json.json, {
    project: { id: 'default' },
    credential: { role: 'editor' },
    subject: { issuer: idp.issuer, sub: 'carol', name: 'Carol Example' },
  });
  t.notOk(json.stdout.includes(s.token), 'no token in --json either');
});

t.test('an expired access token is refreshed before the request; the new tokens are written back', async (t) => {
  const before = await saved();
  await edit((s) => {
    s.oidc.expires_at = now() - 60;
  });
  const who = await runCli(['whoami', '--json'], home, env);
  t.equal(who.code, 0, who.stderr);
  t.equal(who.json.subject.sub, 'carol');
  const after = await saved();
  t.not(after.token, before.token, 'a new access token');
  t.not(after.oidc.refresh_token, before.oidc.refresh_token, 'the rotated refresh token');
  t.ok(after.oidc.expires_at! > now(), 'a new expiry');
  t.equal((await fs.stat(config)).mode & 0o777, 0o600, 'still private');
});

t.test('an access token the gateway refuses (401) is refreshed once and the request retried', async (t) => {
  const before = await saved();
  const [h, p] = before.token.split('.');
  await edit((s) => {
    s.token = `${h}.${p}.c2lnbmF0dXJlLW9mLW5vYm9keQ`;
  });
  const who = await runCli(['whoami'], home, env);
  t.equal(who.code, 0, who.stderr);
  t.match(who.stdout, /^as: +Carol Example/m);
  const after = await saved();
  t.notMatch(after.token, /c2lnbmF0dXJlLW9mLW5vYm9keQ$/, 'the refused token is replaced');
  t.not(after.oidc.refresh_token, before.oidc.refresh_token);
});

t.test(
  'proxy call with an expired access token: one refresh serves both its requests (a rotated refresh token is good once)',
  async (t) => {
    const up = await startCountingServer(t);
    const server = await activeServer(px, up.url, { get_weather: 'ALLOW' });
    const before = await saved();
    await edit((s) => {
      s.oidc.expires_at = now() - 60;
    });
    const call = await runCli(['proxy', 'call', server.id, 'get_weather', '--args', '{"city":"Oslo"}', '--json'], home, env);
    t.equal(call.code, 0, call.stderr);
    t.equal(up.calls(), 1, 'the call went through as the person');
    const after = await saved();
    t.not(after.oidc.refresh_token, before.oidc.refresh_token, 'refreshed and written back');
    t.equal((await runCli(['whoami'], home, env)).code, 0, 'the saved sign-in still works');
  },
);

t.test('a revoked refresh token: the command asks the person to sign in again (exit 2) and writes nothing', async (t) => {
  const s = await saved();
  const revoked = await fetch(`${idp.issuer}/token/revocation`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ token: s.oidc.refresh_token!, token_type_hint: 'refresh_token', client_id: CLI_CLIENT_ID }),
  });
  t.equal(revoked.status, 200, await revoked.text());
  await edit((x) => {
    x.oidc.expires_at = now() - 60;
  });
  const text = await fs.readFile(config, 'utf8');
  const who = await runCli(['whoami', '--json'], home, env);
  t.equal(who.code, 2, 'exit code of an operator mistake');
  t.match(
    who.stderr,
    /^Error: the sign-in at \S+ has expired or was revoked \(invalid_grant\); sign in again: gatewayctl login --oidc --url /m,
  );
  t.equal(who.json.error.code, 'sign_in_required');
  t.equal(await fs.readFile(config, 'utf8'), text, 'the saved file is unchanged');

  const out = await runCli(['logout'], home, env);
  t.equal(out.code, 0, out.stderr);
  t.match(out.stdout, /its access and refresh tokens are removed from .*They stay valid at the identity provider/);
  await t.rejects(fs.stat(config), { code: 'ENOENT' }, 'the saved file is gone');
});

t.test('--oidc and --token exclude each other; --oidc needs a gateway that names its provider', async (t) => {
  const both = await runCli(['login', '--url', gw.url, '--oidc', '--token', 'ggk_x'], home, env);
  t.equal(both.code, 2);
  t.match(both.stderr, /give --token or --oidc, not both/);
  const neither = await runCli(['login', '--url', gw.url], home, env);
  t.equal(neither.code, 2);
  t.match(neither.stderr, /give --token TOKEN .* or --oidc to sign in/);
  // The provider itself serves no protected resource metadata: as a gateway without GATEWAY_OIDC_ISSUER.
  const noIssuer = await runCli(['login', '--url', idp.issuer, '--oidc'], home, env);
  t.equal(noIssuer.code, 2, noIssuer.stderr);
  t.match(noIssuer.stderr, /names no identity provider \(GATEWAY_OIDC_ISSUER is unset there\); log in with --token/);
});
