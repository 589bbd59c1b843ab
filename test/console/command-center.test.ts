// The command center page (console/command-center.ts, emergency-stop.ts) in Debian's headless
// Chromium against a real daemon and a real MCP upstream: the figures of GET /api/v1/command-center;
// an Admin stops the project through a confirmation that names what it stops, an SDK client's tool
// call is then refused, and lifting lets it through again; a Viewer sees the figures and the state
// but has no stop button (and the API refuses it anyway). By keyboard, at 375 px, and axe-core.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import t from 'tap';
import { seriousViolations, startBrowser } from '../helpers/browser.js';
import { activeServer, type ProxyGateway, startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';

const WAIT = { timeout: 60_000 };

async function signIn(page: Page, px: ProxyGateway, key: string): Promise<void> {
  await page.goto(`${px.url}/console`);
  await page.getByLabel('API key or user token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Approvals' }).waitFor(WAIT);
  await page.getByRole('link', { name: 'Command center' }).click();
  await page.getByRole('heading', { name: 'Command center' }).waitFor(WAIT);
  await page.getByText('Figures for the last 24h.').waitFor(WAIT);
}

const figure = (page: Page, name: string) => page.locator(`dd[data-figure="${name}"]`).textContent();

t.test('the emergency stop, confirmed by keyboard, refuses an SDK client; lifting restores it', async (t) => {
  const px = await startProxyGateway(t);
  const upstream = await startCountingServer(t);
  const server = await activeServer(px, upstream.url, { get_weather: 'ALLOW' });
  const client = new Client({ name: 'console-stop-test', version: '1.0.0' });
  const requestInit = { headers: { authorization: `Bearer ${await px.gw.key('admin')}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${server.id}`), { requestInit }));
  t.teardown(() => client.close());
  const weather = () => client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } });
  t.match(await weather(), { content: [{ type: 'text' }] }, 'before the stop, the call goes through');

  const page = await (await startBrowser(t, { width: 375, height: 740 })).newPage();
  await signIn(page, px, await px.gw.key('admin', 'alice'));
  t.match(await figure(page, 'Tool calls'), /^1$/, 'the MCP call is counted');
  t.match(await figure(page, 'Traces'), /^\d+ \(/, 'the traces KPI with its delta');
  await page.getByText('No emergency stop: traffic flows.').waitFor(WAIT);
  t.same(await seriousViolations(page), [], 'axe-core: no serious or critical violation on the command center');

  const start = page.getByRole('button', { name: 'Emergency stop…' });
  await start.focus();
  await page.keyboard.press('Enter');
  const confirm = page.getByRole('group', { name: 'Stop the whole project?' });
  await confirm.waitFor(WAIT);
  // UPDATE_DOCS=1 (as for docs:openapi) refreshes the screenshot docs/console.md shows.
  if (process.env.UPDATE_DOCS === '1')
    await page.screenshot({ path: new URL('../../../docs/console-command-center.png', import.meta.url).pathname, fullPage: true });
  t.match(await confirm.textContent(), /refuses every request made with a project key.*MCP tool calls.*until an Admin user token lifts it/);
  t.equal((await px.gw.api('GET', '/api/v1/project/emergency-stop')).body.active, false, 'nothing is stopped before the confirmation');
  t.same(await seriousViolations(page), [], 'axe-core: no serious or critical violation with the confirmation open');
  await page.keyboard.type('incident 42'); // the reason box has the focus
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter'); // Stop the project
  await page.getByText(/^Emergency stop ACTIVE since .* \("incident 42"\)\.$/).waitFor(WAIT);

  await t.rejects(weather(), { code: 403, message: /project_emergency_stopped/ }, 'a stopped project refuses the SDK call');
  t.equal(upstream.calls(), 1, 'the refused call never reached the upstream');

  await page.getByRole('button', { name: 'Lift the emergency stop' }).click();
  await page.getByText('No emergency stop: traffic flows.').waitFor(WAIT);
  t.match(await weather(), { content: [{ type: 'text' }] }, 'lifted: the call goes through again');
  t.equal(upstream.calls(), 2);
  t.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'no sideways scrolling at 375 px');
});

t.test('cancelling the confirmation stops nothing; a Viewer sees the figures and no stop button', async (t) => {
  const px = await startProxyGateway(t);
  const page = await (await startBrowser(t)).newPage();
  await signIn(page, px, await px.gw.key('admin', 'alice'));
  await page.getByRole('button', { name: 'Emergency stop…' }).click();
  await page.getByRole('button', { name: 'Cancel' }).click();
  t.equal(
    await page.getByRole('button', { name: 'Emergency stop…' }).evaluate((e) => e === document.activeElement),
    true,
    'the focus returns',
  );
  t.equal((await px.gw.api('GET', '/api/v1/project/emergency-stop')).body.active, false, 'cancelled: not stopped');

  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor(WAIT);
  await signIn(page, px, await px.gw.key('viewer', 'vera'));
  t.match(await figure(page, 'Governance score'), /^\d+ \/ 100/, 'the Viewer sees the figures');
  await page.getByText('No emergency stop: traffic flows.').waitFor(WAIT);
  t.equal(await page.getByRole('button', { name: /stop/i }).count(), 0, 'no stop or lift button for a Viewer');
  t.match(await page.locator('section.stop').textContent(), /Stopping and lifting need an Admin; this session acts as a viewer key\./);
  const forced = await page.evaluate(`(async () => {
    const s = await (await fetch('/api/v1/console/session')).json();
    const res = await fetch('/api/v1/project/emergency-stop', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-csrf': s.csrf_token },
      body: '{}',
    });
    return res.status;
  })()`);
  t.equal(forced, 403, "the API refuses the Viewer's stop made from the page");
  t.equal((await px.gw.api('GET', '/api/v1/project/emergency-stop')).body.active, false, 'nothing stopped');
  t.same(await seriousViolations(page), [], "axe-core: no serious or critical violation on the Viewer's command center");
});
