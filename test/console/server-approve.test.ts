// "Approve server…" on the Servers page (console/server-approve.ts) in Debian's headless Chromium
// against a real daemon and a real SDK upstream: an Admin approves a scanned server with one rule
// changed in its select, and the API and an SDK client's calls through the proxy follow the rules
// chosen; a tool changed between reading and confirming is refused, said, and nothing is approved;
// a project key is refused in plain words; a Viewer or an Editor sees no Approve button. Keyboard
// and axe-core throughout.
import { randomUUID } from 'node:crypto';
import t from 'tap';
import type { ProxyGateway } from '../helpers/mcp-proxy.js';
import { seriousViolations, startBrowser } from '../helpers/browser.js';
import { startCountingServer, startProxyGateway } from '../helpers/mcp-proxy.js';
import { SAMPLE_TOOLS } from '../helpers/mcp-servers.js';
import { connectClient, rescan, signIn, WAIT } from '../helpers/servers-page.js';

interface ListedTool {
  id: string;
  name: string;
  proposed_rule: string | null;
  policy_action: string | null;
  matches_approved: boolean | null;
}

/** Registers `url` and scans it: a server PENDING_APPROVAL. */
async function pendingServer(px: ProxyGateway, url: string): Promise<{ id: string; name: string }> {
  const name = `p-${randomUUID().slice(0, 8)}`;
  const reg = await px.gw.api('POST', '/api/v1/mcp/servers', { body: { name, server_url: url } });
  if (reg.status !== 201) throw new Error(`register: ${reg.status} ${reg.text}`);
  await rescan(px, reg.body.id as string);
  return { id: reg.body.id as string, name };
}

const toolsOf = async (px: ProxyGateway, id: string): Promise<Record<string, ListedTool>> =>
  Object.fromEntries(((await px.gw.api('GET', `/api/v1/mcp/servers/${id}/tools`)).body.tools as ListedTool[]).map((x) => [x.name, x]));

/** A tool of the server without a proposal, as the API allows (the classifier always makes one); a scan proposes again. */
async function withoutProposal(px: ProxyGateway, id: string, name: string): Promise<void> {
  await px.gw.db`update mcp_tools set proposed_rule = null, proposed_rule_source = null where server_id = ${id} and name = ${name}`;
}

/** What an approval writes: the server's status, its rules, admitted tools and releases. */
async function written(px: ProxyGateway, id: string) {
  const [server] = await px.gw.db`select status from mcp_servers where id = ${id}`;
  const [counts] = await px.gw.db`
    select (select count(*)::int from mcp_policies where server_id = ${id}) as rules,
           (select count(*)::int from mcp_tools where server_id = ${id} and approved_hash is not null) as admitted,
           (select count(*)::int from mcp_releases where server_id = ${id}) as releases`;
  return { status: server!.status as string, ...counts };
}

t.test('an Admin approves a pending server with one rule changed; a tool changed meanwhile is refused first', async (t) => {
  const px = await startProxyGateway(t);
  const tools = SAMPLE_TOOLS.map((x) => ({ ...x }));
  const upstream = await startCountingServer(t, { tools });
  const server = await pendingServer(px, upstream.url);
  await withoutProposal(px, server.id, 'ping');
  const listed = await toolsOf(px, server.id);
  t.equal(listed.get_weather!.proposed_rule, 'LOG_ONLY', 'a read tool open to the world is proposed LOG_ONLY, which forwards');

  const alice = await px.gw.key('admin', 'alice');
  const page = await (await startBrowser(t)).newPage();
  await signIn(page, px, alice, server.id);
  await page.getByRole('button', { name: 'Approve server…' }).click();
  const panel = page.getByRole('region', { name: `Approve ${server.name}: a rule for each tool` });
  await panel.waitFor(WAIT);
  for (const name of ['get_weather', 'delete_file'])
    t.equal(await panel.getByLabel(`Rule for ${name}`).inputValue(), listed[name]!.proposed_rule, `${name}: its proposal preselected`);
  t.equal(await panel.getByLabel('Rule for ping').inputValue(), 'REQUIRE_APPROVAL', 'no proposal: REQUIRE_APPROVAL preselected');
  t.match(await panel.textContent(), /Proposed: none \(REQUIRE_APPROVAL preselected\)/);
  t.match(
    await panel.textContent(),
    /Proposed: LOG_ONLY \(from its action\) · risk medium \(read, network\)/,
    "the proposal's source and the risk shown",
  );
  t.same(await seriousViolations(page), [], 'axe-core: no serious or critical violation with the rules to choose');

  await panel.getByLabel('Rule for delete_file').selectOption('DENY');
  await panel.getByRole('button', { name: 'Review…' }).click();
  const confirm = page.getByRole('region', { name: `Approve ${server.name}?` });
  t.same(
    (await confirm.getByRole('listitem').allTextContents()).sort(),
    [
      `delete_file: DENY (proposed ${listed.delete_file!.proposed_rule})`,
      `get_weather: ${listed.get_weather!.proposed_rule}`,
      'ping: REQUIRE_APPROVAL (no proposal)',
    ],
    'the confirmation names every tool and its rule',
  );
  t.match(await confirm.getByRole('alert').textContent(), new RegExp(`${server.name} becomes ACTIVE and its 3 tools admitted`));
  const yes = confirm.getByRole('button', { name: 'Yes, approve the server' });
  t.equal(await yes.evaluate((b) => b === document.activeElement), true, 'the confirmation takes the focus');
  t.same(await seriousViolations(page), [], 'axe-core: none on the confirmation either');

  // get_weather changes after the page read it: approving what was read is refused and said.
  tools[0] = { ...tools[0]!, description: 'Current weather for a city, in Celsius.' };
  await rescan(px, server.id);
  await withoutProposal(px, server.id, 'ping');
  await yes.click();
  await page
    .getByText(/^Not approved: a tool's definition changed since this page read it \(Changed since the list was read: get_weather;/)
    .waitFor(WAIT);
  t.match(await written(px, server.id), { status: 'PENDING_APPROVAL', rules: 0, admitted: 0, releases: 0 }, 'nothing approved');
  t.match(await page.locator('main').textContent(), /Current weather for a city, in Celsius\./, 'the page shows the new definition');

  // Again, by keyboard only: Tab to the button, Enter; the rule; Review… and confirm with Enter.
  const start = page.getByRole('button', { name: 'Approve server…' });
  for (let i = 0; i < 30 && !(await start.evaluate((b) => b === document.activeElement)); i += 1) await page.keyboard.press('Tab');
  t.equal(await start.evaluate((b) => b === document.activeElement), true, 'Approve server… is reachable by Tab');
  await page.keyboard.press('Enter');
  t.equal(
    await panel
      .locator('select')
      .first()
      .evaluate((s) => s === document.activeElement),
    true,
    'the first rule takes the focus',
  );
  await panel.getByLabel('Rule for delete_file').selectOption('DENY');
  await panel.getByRole('button', { name: 'Review…' }).press('Enter');
  await yes.press('Enter');
  await page.getByText(`Approved ${server.name}: it is ACTIVE, its 3 tools admitted with the rules chosen.`).waitFor(WAIT);
  t.match(await page.locator('.facts dd').first().textContent(), 'ACTIVE', 'the page reads the server ACTIVE');
  t.equal(await page.getByRole('button', { name: 'Approve server…' }).count(), 0, 'and offers no approval any more');

  const server2 = (await px.gw.api('GET', `/api/v1/mcp/servers/${server.id}`)).body;
  t.equal(server2.status, 'ACTIVE', 'the API shows the server ACTIVE');
  const after = await toolsOf(px, server.id);
  t.same(
    Object.fromEntries(Object.values(after).map((x) => [x.name, [x.policy_action, x.matches_approved]])),
    { delete_file: ['DENY', true], get_weather: ['LOG_ONLY', true], ping: ['REQUIRE_APPROVAL', true] },
    'exactly the rules chosen, every tool admitted as it is now',
  );

  const client = await connectClient(t, px, server.id);
  t.match(await client.callTool({ name: 'get_weather', arguments: { city: 'Oslo' } }), { content: [{ type: 'text' }] });
  t.equal(upstream.calls(), 1, 'the LOG_ONLY tool passes through the proxy');
  await t.rejects(client.callTool({ name: 'delete_file', arguments: { path: '/etc/passwd' } }), 'the DENY tool is refused');
  t.equal(upstream.calls(), 1, 'and never reaches the upstream');
});

t.test('a Viewer and an Editor see no Approve server…; a project key is refused in plain words and nothing changes', async (t) => {
  const px = await startProxyGateway(t);
  const upstream = await startCountingServer(t, { tools: SAMPLE_TOOLS });
  const server = await pendingServer(px, upstream.url);

  for (const role of ['viewer', 'editor'] as const) {
    const page = await (await startBrowser(t, { width: 375, height: 740 })).newPage();
    await signIn(page, px, await px.gw.key(role, `${role}-user`), server.id);
    t.match(await page.locator('main').textContent(), /PENDING_APPROVAL/);
    t.equal(await page.getByRole('button', { name: /Approve/ }).count(), 0, `no Approve server… for the ${role}`);
  }

  const projectKey = await px.gw.key('admin');
  const page = await (await startBrowser(t, { width: 375, height: 740 })).newPage();
  await signIn(page, px, projectKey, server.id);
  await page.getByRole('button', { name: 'Approve server…' }).click();
  t.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'the rules fit 375 px');
  t.same(await seriousViolations(page), [], 'axe-core: no serious or critical violation at 375 px');
  await page.getByRole('button', { name: 'Review…' }).click();
  await page.getByRole('button', { name: 'Yes, approve the server' }).click();
  await page
    .getByText(/^Not approved: approving takes a person \(an Admin user token, or someone the identity provider signed in\)/)
    .waitFor(WAIT);
  t.match(await written(px, server.id), { status: 'PENDING_APPROVAL', rules: 0, admitted: 0, releases: 0 }, 'nothing approved');
  t.equal(await page.getByRole('button', { name: 'Approve server…' }).count(), 1, 'the server is still offered for approval');
});
