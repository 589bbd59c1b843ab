// Sign-in to the web console by the organisation's identity provider, in Debian's headless Chromium
// against a real daemon and a real oidc-provider: the person follows "Sign in with <issuer>", logs
// in and consents on the provider's own pages, lands in the console as themselves, and approves a
// waiting SDK client call, which gets the tool's result; the approval names the person. A person
// the claims grant no role comes back to the sign-in page, told why, with no session.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import t from 'tap';
import { seriousViolations, startBrowser } from '../helpers/browser.js';
import { activeServer, startCountingServer } from '../helpers/mcp-proxy.js';
import { startConsoleIdp } from '../helpers/oidc-code-user.js';

// Playwright's waits and the SDK's wait for an answer end at these bounds rather than hang.
const WAIT = { timeout: 60_000 };
const CALL = { timeout: 300_000 };

const PEOPLE = [
  { id: 'alice', claims: { name: 'Alice Example', groups: ['admin'], gateway_project: 'default' } },
  { id: 'nora', claims: { name: 'Nora Nobody', groups: ['contractors'], gateway_project: 'default' } },
];

/** From the console's sign-in page through the provider's login and consent pages, back to the console. */
async function signInAtProvider(page: Page, consoleUrl: string, issuer: string, login: string): Promise<void> {
  await page.goto(consoleUrl);
  await page.getByRole('link', { name: `Sign in with ${issuer}` }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password');
  await page.getByRole('button', { name: 'Sign-in' }).click();
  await page.getByRole('button', { name: 'Continue' }).click();
}

t.test('a person signs in through the provider and approves a waiting call as themselves', async (t) => {
  const { px, gw, idp } = await startConsoleIdp(t, PEOPLE, { env: { GATEWAY_INSPECTION_BUDGET_MS: '120000' } });
  const upstream = await startCountingServer(t);
  const server = await activeServer(px, upstream.url, { delete_file: 'REQUIRE_APPROVAL' });
  const client = new Client({ name: 'console-oidc-test', version: '1.0.0' });
  const requestInit = { headers: { authorization: `Bearer ${gw.adminToken}`, 'x-gateway-approval-wait': '300' } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`), { requestInit }));
  t.teardown(() => client.close());

  const page = await (await startBrowser(t)).newPage();
  await page.goto(`${gw.url}/console`);
  await page.getByRole('link', { name: `Sign in with ${idp.issuer}` }).waitFor(WAIT);
  t.same(await seriousViolations(page), [], 'axe-core: no serious or critical violation on the sign-in page');
  await signInAtProvider(page, `${gw.url}/console`, idp.issuer, 'alice');
  await page.getByRole('heading', { name: 'Approvals' }).waitFor(WAIT);
  t.match(await page.locator('#who').textContent(), /Alice Example · admin/, 'the header names the person and role');
  t.equal(new URL(page.url()).pathname, '/console', 'back on the console');

  const call = client.callTool({ name: 'delete_file', arguments: { path: 'by-alice.txt' } }, undefined, CALL);
  const card = page.locator('article.approval', { hasText: 'by-alice.txt' });
  await card.waitFor(WAIT);
  await card.getByRole('button', { name: 'Approve' }).click();
  t.match(await call, { content: [{ type: 'text', text: '{"path":"by-alice.txt"}' }] }, "the SDK client received the tool's result");
  t.equal(upstream.calls(), 1);
  await card.getByText('You approved this request.').waitFor(WAIT);
  const [row] = await gw.db`select status, decided_by from approvals where tool_name = 'delete_file'`;
  t.same(row, { status: 'USED', decided_by: 'Alice Example (alice)' }, 'the approval names the person');
});

t.test('a person with no role comes back to the sign-in page, told why, without a session', async (t) => {
  const { gw, idp } = await startConsoleIdp(t, PEOPLE);
  const page = await (await startBrowser(t)).newPage();
  await signInAtProvider(page, `${gw.url}/console`, idp.issuer, 'nora');
  await page.getByText('Your account has no role on this gateway: ask an administrator.').waitFor(WAIT);
  t.equal(new URL(page.url()).search, '', 'the reason is taken out of the address');
  t.equal((await page.context().cookies()).filter((c) => c.name === 'gateway_console').length, 0, 'no session cookie');
  t.equal((await gw.db`select count(*)::int as n from console_sessions`)[0]!.n, 0, 'no session');
});
