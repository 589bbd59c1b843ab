// Web console sessions over HTTP (http/console-session.ts, api/console.ts): signing in with a key
// sets an HttpOnly, SameSite=Strict cookie (Secure behind an https public URL) whose session acts as
// the key on the API routes; a state-changing request without the session's CSRF token or the
// console's Origin is refused 403 with nothing written; idle and absolute expiry, sign-out and a
// revoked key end the session; roles apply as they do to the key; only the id's hash is stored.
import { createHash } from 'node:crypto';
import t from 'tap';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

interface Signed {
  cookie: string;
  setCookie: string;
  csrf: string;
  body: Record<string, unknown>;
}

async function signIn(gw: TestGateway, key: string, headers: Record<string, string> = { origin: gw.url }): Promise<Signed> {
  const res = await fetch(`${gw.url}/api/v1/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ key }),
  });
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== 201) throw new Error(`sign-in: ${res.status} ${JSON.stringify(body)}`);
  const setCookie = res.headers.get('set-cookie') ?? '';
  return { cookie: setCookie.split(';')[0]!, setCookie, csrf: body.csrf_token as string, body };
}

/** A request as the console's page makes it: the cookie, and for writes the CSRF token and Origin unless left out. */
async function asConsole(
  gw: TestGateway,
  s: Signed,
  method: string,
  route: string,
  options: { body?: unknown; csrf?: string | null; origin?: string | null } = {},
) {
  const headers: Record<string, string> = { cookie: s.cookie };
  const csrf = options.csrf === undefined ? s.csrf : options.csrf;
  const origin = options.origin === undefined ? gw.url : options.origin;
  if (csrf !== null) headers['x-gateway-csrf'] = csrf;
  if (origin !== null) headers.origin = origin;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(gw.url + route, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const keyCount = async (gw: TestGateway) => (await gw.db`select count(*)::int as n from credentials`)[0]!.n as number;

const gw = await startTestGateway(t);
const alice = await gw.key('admin', 'alice');

t.test('sign-in sets an HttpOnly, SameSite=Strict cookie (no Secure over plain http); only the hash is stored', async (t) => {
  const s = await signIn(gw, alice);
  t.match(s.setCookie, /^gateway_console=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  t.notMatch(s.setCookie, /Secure/);
  t.match(s.body, {
    credential: { name: 'admin key', role: 'admin', kind: 'user_token', user_id: 'alice' },
    csrf_token: /^[A-Za-z0-9_-]{43}$/,
  });
  t.notMatch(JSON.stringify(s.body), alice, 'the answer does not echo the key');
  const id = s.cookie.split('=')[1]!;
  const rows = await gw.db`select id_hash, idle_seconds, expires_at - created_at as span from console_sessions`;
  const stored = rows.map((r) => Buffer.from(r.id_hash as Buffer).toString('hex'));
  t.ok(stored.includes(createHash('sha256').update(`session\u0000${id}`).digest('hex')), 'the hash of the id is stored');
  t.notOk(JSON.stringify(rows).includes(id), 'the id itself is not');
  const read = await asConsole(gw, s, 'GET', '/api/v1/console/session');
  t.equal(read.status, 200);
  t.equal(read.body.csrf_token, s.csrf, 'the page can recover its CSRF token after a reload');
  const list = await asConsole(gw, s, 'GET', '/api/v1/approvals');
  t.equal(list.status, 200, 'the cookie authenticates the API routes');
});

t.test('Secure when the public URL is https; an Origin other than the console is refused sign-in', async (t) => {
  const tls = await startTestGateway(t, { env: { GATEWAY_PUBLIC_URL: 'https://gw.example.test' } });
  const s = await signIn(tls, tls.adminToken, {});
  t.match(s.setCookie, /; Secure$/);
  const before = (await tls.db`select count(*)::int as n from console_sessions`)[0]!.n;
  const res = await fetch(`${tls.url}/api/v1/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: 'https://evil.example' },
    body: JSON.stringify({ key: tls.adminToken }),
  });
  t.equal(res.status, 403);
  t.equal((await tls.db`select count(*)::int as n from console_sessions`)[0]!.n, before, 'no session written');
});

t.test('a wrong key or an extension key opens no session', async (t) => {
  const before = (await gw.db`select count(*)::int as n from console_sessions`)[0]!.n;
  for (const key of ['ggu_' + 'A'.repeat(43), 'not a key']) {
    const res = await fetch(`${gw.url}/api/v1/console/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: gw.url },
      body: JSON.stringify({ key }),
    });
    t.equal(res.status, 401, key);
    t.equal(res.headers.get('set-cookie'), null);
  }
  const ext = await gw.api('POST', '/api/v1/extensions', { body: { name: 'ext' } });
  t.equal(ext.status, 201);
  const res = await fetch(`${gw.url}/api/v1/console/session`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: gw.url },
    body: JSON.stringify({ key: ext.body.api_key }),
  });
  t.equal(res.status, 403, 'an extension key cannot sign in');
  t.equal((await gw.db`select count(*)::int as n from console_sessions`)[0]!.n, before);
});

t.test('CSRF: a write without the token, with a wrong one, or without the Origin is refused, nothing written', async (t) => {
  const s = await signIn(gw, alice);
  const before = await keyCount(gw);
  const body = { name: 'via console', role: 'viewer' };
  for (const [what, options] of [
    ['no token', { csrf: null }],
    ['a wrong token', { csrf: 'x'.repeat(43) }],
    ["another session's token", { csrf: (await signIn(gw, alice)).csrf }],
    ['no Origin', { origin: null }],
  ] as const) {
    const res = await asConsole(gw, s, 'POST', '/api/v1/keys', { body, ...options });
    t.equal(res.status, 403, what);
    t.equal(res.body.error.code, 'csrf_refused', what);
  }
  const foreign = await asConsole(gw, s, 'POST', '/api/v1/keys', { body, origin: 'https://evil.example' });
  t.equal(foreign.status, 403, 'a foreign Origin');
  t.equal(await keyCount(gw), before, 'no key was created');
  const ok = await asConsole(gw, s, 'POST', '/api/v1/keys', { body });
  t.equal(ok.status, 201, 'with the token and the Origin the write goes through');
  t.equal(await keyCount(gw), before + 1);
});

t.test('roles apply as for the key: a Viewer session reads but cannot decide or write', async (t) => {
  const viewer = await signIn(gw, await gw.key('viewer', 'vera'));
  t.equal((await asConsole(gw, viewer, 'GET', '/api/v1/approvals')).status, 200);
  const before = await keyCount(gw);
  const res = await asConsole(gw, viewer, 'POST', '/api/v1/keys', { body: { name: 'nope', role: 'viewer' } });
  t.equal(res.status, 403);
  t.equal(res.body.error.code, 'forbidden');
  t.equal(await keyCount(gw), before);
});

t.test('idle expiry, absolute expiry, sign-out and revocation end the session', async (t) => {
  const hashOf = (s: Signed) =>
    createHash('sha256')
      .update(`session\u0000${s.cookie.split('=')[1]}`)
      .digest();
  const idle = await signIn(gw, alice);
  await gw.db`update console_sessions set last_seen_at = now() - interval '1801 seconds' where id_hash = ${hashOf(idle)}`;
  t.equal((await asConsole(gw, idle, 'GET', '/api/v1/approvals')).status, 401, 'idle past GATEWAY_CONSOLE_SESSION_IDLE_SECONDS');

  const used = await signIn(gw, alice);
  await gw.db`update console_sessions set last_seen_at = now() - interval '1700 seconds' where id_hash = ${hashOf(used)}`;
  t.equal((await asConsole(gw, used, 'GET', '/api/v1/approvals')).status, 200, 'within the idle time');
  const [seen] =
    await gw.db`select now() - last_seen_at < interval '60 seconds' as fresh from console_sessions where id_hash = ${hashOf(used)}`;
  t.equal(seen!.fresh, true, 'a request moves the idle expiry on');

  const old = await signIn(gw, alice);
  await gw.db`update console_sessions set expires_at = now() - interval '1 second' where id_hash = ${hashOf(old)}`;
  t.equal((await asConsole(gw, old, 'GET', '/api/v1/approvals')).status, 401, 'past the absolute expiry, however recently used');

  const out = await signIn(gw, alice);
  const refused = await asConsole(gw, out, 'DELETE', '/api/v1/console/session', { csrf: null });
  t.equal(refused.status, 403, 'sign-out needs the CSRF token too');
  t.equal((await asConsole(gw, out, 'GET', '/api/v1/approvals')).status, 200, 'and the session goes on');
  const bye = await asConsole(gw, out, 'DELETE', '/api/v1/console/session');
  t.equal(bye.status, 204);
  t.match(bye.headers.get('set-cookie'), /^gateway_console=; Path=\/; HttpOnly; SameSite=Strict; Max-Age=0$/, 'the cookie is cleared');
  t.equal((await asConsole(gw, out, 'GET', '/api/v1/approvals')).status, 401, 'signed out');
  t.equal((await asConsole(gw, out, 'GET', '/api/v1/console/session')).status, 401);

  const token = await gw.key('admin', 'rita');
  const revoked = await signIn(gw, token);
  const [cred] = await gw.db`select id from credentials where user_id = 'rita'`;
  t.equal((await gw.api('DELETE', `/api/v1/keys/${cred!.id}`)).status < 300, true);
  t.equal((await asConsole(gw, revoked, 'GET', '/api/v1/approvals')).status, 401, 'a revoked key ends its sessions');
});

t.test('a bearer token wins over a cookie; a malformed cookie is no session', async (t) => {
  const res = await fetch(`${gw.url}/api/v1/approvals`, { headers: { cookie: 'gateway_console=nonsense' } });
  t.equal(res.status, 401);
  const both = await fetch(`${gw.url}/api/v1/keys`, {
    method: 'POST',
    headers: { cookie: 'gateway_console=nonsense', authorization: `Bearer ${gw.adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bearer wins', role: 'viewer' }),
  });
  t.equal(both.status, 201, 'a bearer request is no cookie session (and needs no CSRF token)');
});
