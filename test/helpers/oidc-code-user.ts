// The person's side of a console sign-in by the identity provider, as a browser does it over plain
// HTTP (a cookie jar, redirects followed by hand): begin at the gateway, log in and consent on
// oidc-provider's own pages, and stop where the provider sends the browser back to the gateway, so
// a test can follow that return itself (or tamper with the request on the way out). Also the
// gateway and provider pair those tests share.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import type { TestGateway } from './gateway.js';
import { type ProxyGateway, startProxyGateway } from './mcp-proxy.js';
import { Browser, formOf } from './oidc-device-user.js';
import { startOidcProvider, type TestClient, type TestPerson, type TestProvider } from './oidc-provider.js';
import { freeLoopbackPort } from './ports.js';

export const CALLBACK_PATH = '/api/v1/console/oidc/callback';
export const CONSOLE_CLIENT = { id: 'gateway-console', secret: 'console-secret-of-enough-length-0123456789' };
/** Another web client with the same redirect URI: its ID tokens are not for the gateway. */
export const OTHER_CLIENT = { id: 'other-app', secret: 'other-secret-of-enough-length-0123456789' };

export interface ConsoleIdp {
  readonly idp: TestProvider;
  readonly px: ProxyGateway;
  readonly gw: TestGateway;
}

/**
 * oidc-provider with `people` and the console's client, and a gateway signing the console in with
 * it (listening on a port chosen first: the redirect URI is registered before the gateway starts).
 */
export async function startConsoleIdp(
  t: Test,
  people: readonly TestPerson[],
  options: { clients?: readonly TestClient[]; env?: Record<string, string> } = {},
): Promise<ConsoleIdp> {
  const port = await freeLoopbackPort();
  const redirectUri = `http://127.0.0.1:${port}${CALLBACK_PATH}`;
  const idp = await startOidcProvider(t, options.clients ?? [], {
    people,
    webClients: [
      { ...CONSOLE_CLIENT, redirectUri },
      { ...OTHER_CLIENT, redirectUri },
    ],
  });
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-console-oidc-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const px = await startProxyGateway(t, {
    GATEWAY_LISTEN: `127.0.0.1:${port}`,
    GATEWAY_OIDC_ISSUER: idp.issuer,
    GATEWAY_CONSOLE_OIDC_CLIENT_ID: CONSOLE_CLIENT.id,
    GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: await writeSecretFile(dir, CONSOLE_CLIENT.secret),
    ...options.env,
  });
  return { idp, px, gw: px.gw };
}

/** Where the provider sent the browser back to (not yet followed) and the browser, its cookies held. */
export interface Returned {
  readonly browser: Browser;
  readonly callback: URL;
}

/**
 * Begins a sign-in at the gateway, logs in at the provider as `login` and consents. `tamper` edits
 * the authorization request the gateway sent the browser with, before the browser follows it.
 */
export async function loginByCode(
  gatewayUrl: string,
  login: string,
  options: { browser?: Browser; tamper?: (authorize: URL) => void } = {},
): Promise<Returned> {
  const browser = options.browser ?? new Browser();
  const start = await browser.once(`${gatewayUrl}/api/v1/console/oidc/start`);
  const location = start.headers.get('location');
  if (start.status !== 302 || location === null) throw new Error(`start answered ${start.status} ${await start.text()}`);
  const authorize = new URL(location, gatewayUrl);
  if (authorize.origin === new URL(gatewayUrl).origin) return { browser, callback: authorize }; // refused at once
  options.tamper?.(authorize);
  const callback = await authorizeAt(browser, authorize, login, (u) => u.href.startsWith(`${gatewayUrl}${CALLBACK_PATH}`));
  return { browser, callback };
}

/**
 * Follows an authorization request at oidc-provider as the person `login`: its login page, then
 * its consent page, until the provider sends the browser to a URL `isReturn` recognises (the
 * client's redirect URI, not followed); returns that URL, code or error in its query.
 */
export async function authorizeAt(browser: Browser, authorize: URL, login: string, isReturn: (u: URL) => boolean): Promise<URL> {
  const loginPage = await browser.open(authorize.href, undefined, isReturn);
  if (isReturn(new URL(loginPage.url))) return new URL(loginPage.url);
  const loginForm = formOf(loginPage);
  const consentPage = await browser.open(
    loginForm.action,
    { ...loginForm.fields, prompt: 'login', login, password: 'any password' },
    isReturn,
  );
  if (isReturn(new URL(consentPage.url))) return new URL(consentPage.url);
  const consent = formOf(consentPage);
  const back = await browser.open(consent.action, { ...consent.fields, prompt: 'consent' }, isReturn);
  if (!isReturn(new URL(back.url)))
    throw new Error(`the provider did not send the browser back: ${back.url} ${back.status} ${back.text.slice(0, 300)}`);
  return new URL(back.url);
}

/** The gateway's answer to the browser's return: where it sends the browser, and whether a session cookie came. */
export async function returnTo(
  r: Returned,
  callback: URL = r.callback,
): Promise<{ status: number; location: string | null; session: boolean }> {
  const res = await r.browser.once(callback.href);
  await res.arrayBuffer();
  const session = res.headers.getSetCookie().some((c) => /^gateway_console=[^;]+/.test(c));
  return { status: res.status, location: res.headers.get('location'), session };
}

export async function writeSecretFile(dir: string, secret: string): Promise<string> {
  const file = path.join(dir, 'console-client.secret');
  await fs.writeFile(file, `${secret}\n`, { mode: 0o600 });
  return file;
}
