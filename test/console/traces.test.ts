// The traces pages (console/traces.ts, trace-page.ts, proof-panel.ts) in Debian's headless Chromium
// against a real daemon: the list and its filters; a trace's page checks its proof in the browser
// with Web Crypto, pending before a checkpoint covers it, verified once one does, and plainly failed
// for a rewritten trace (test/helpers/tamper.ts) or a pinned key that is not the signer's; text only,
// 375 px wide, by keyboard, and no serious axe-core violation.
import { generateKeyPairSync } from 'node:crypto';
import type { Page } from 'playwright-core';
import t, { type Test } from 'tap';
import { verifierKey } from '../../shared/signed-note.js';
import { seriousViolations, startBrowser } from '../helpers/browser.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';
import { tamper } from '../helpers/tamper.js';

const WAIT = { timeout: 60_000 };
const HOSTILE = '<img src=x onerror="window.__pwned=1"><b>bold</b> \u001b[31mred';

async function setup(t: Test) {
  // Checkpoints only when the test cuts one, so "pending" is not a race with the 10 s timer.
  const gw = await startTestGateway(t, { env: { GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '86400' } });
  const traces = [];
  for (let i = 1; i <= 6; i++) {
    const blocked = i % 3 === 0;
    traces.push(
      await gw.gateway.writer.append('default', {
        traceType: 'VERIFY',
        decision: blocked ? 'BLOCKED' : 'PASSED',
        reason: blocked ? `${HOSTILE} ${i}` : null,
        content: { display: `prompt ${i} ${HOSTILE}` },
      }),
    );
  }
  const staging = await gw.gateway.writer.append('default', {
    traceType: 'VERIFY',
    decision: 'FLAGGED',
    environment: 'staging',
    content: { display: 'on staging' },
  });
  const page = await (await startBrowser(t, { width: 375, height: 740 })).newPage();
  await signIn(page, gw, await gw.key('viewer', 'vera'));
  return { gw, traces, staging, page };
}

async function signIn(page: Page, gw: TestGateway, key: string): Promise<void> {
  await page.goto(`${gw.url}/console`);
  await page.getByLabel('API key or user token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Approvals' }).waitFor(WAIT);
}

const listed = (page: Page) => page.locator('li.trace').evaluateAll((els) => els.map((e) => e.getAttribute('data-trace-id')));
const verdict = (page: Page) => page.locator('p.verdict');

async function openTrace(page: Page, gw: TestGateway, id: string): Promise<void> {
  await page.goto(`${gw.url}/console/#/traces/${id}`);
  await page.getByRole('heading', { name: /^Trace #\d+/ }).waitFor(WAIT);
  await page.locator('p.verdict:not(:text("Checking…"))').waitFor(WAIT);
}

t.test('the list: newest first, filtered by the form as the API filters, values as text, at 375 px', async (t) => {
  const { traces, staging, page } = await setup(t);
  await page.getByRole('link', { name: 'Traces' }).click();
  await page.getByText('Traces 1–6 of 6.').waitFor(WAIT);
  t.same(await listed(page), traces.map((x) => x.id).reverse(), 'the prod traces, newest first');
  t.equal(await page.locator('li.trace img, li.trace b').count(), 0, 'no element made from a reason');
  t.ok((await page.locator('li.trace').first().textContent())?.includes('<img src=x'), 'the reason shows as its text');
  t.equal(await page.evaluate('window.__pwned'), undefined, 'nothing ran');

  await page.getByLabel('Decision').selectOption('BLOCKED');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Traces 1–2 of 2.').waitFor(WAIT);
  t.same(await listed(page), [traces[5]!.id, traces[2]!.id], 'only the BLOCKED ones');

  await page.getByLabel('Decision').selectOption('');
  await page.getByLabel('Environment').fill('staging');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText('Traces 1–1 of 1.').waitFor(WAIT);
  t.same(await listed(page), [staging.id], 'the environment filter');

  await page.getByLabel('Since').fill('yesterday');
  await page.getByRole('button', { name: 'Apply filters' }).click();
  await page.getByText(/^The filters were refused: /).waitFor(WAIT);
  t.equal(await page.locator('li.trace').count(), 0, 'a refused filter shows no stale list');

  t.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'no sideways scrolling at 375 px');
  t.same(await seriousViolations(page), [], 'axe-core: no serious or critical violation on the list');
});

t.test("a trace's proof in the browser: pending, then verified; a wrong pinned key fails it", async (t) => {
  const { gw, traces, page } = await setup(t);
  const pick = traces[3]!; // PASSED: its content is shown as forwarded
  await openTrace(page, gw, pick.id);
  t.match(
    await verdict(page).textContent(),
    /^Pending: the integrity hash checks, but no checkpoint covers this trace yet/,
    'pending, not failed',
  );
  t.equal(await page.locator('[data-step="checkpoint_signature"]').getAttribute('data-result'), 'pending');
  t.ok((await page.locator('dl.facts').textContent())?.includes('PASSED'), 'its decision');
  t.equal(await page.locator('main img, main b').count(), 0, 'content and reason as text');
  t.match(await page.locator('#trace-content').textContent(), /prompt 4 <img src=x/, 'the content shown');

  const [cp] = await gw.gateway.checkpointNow();
  t.equal(cp!.tree_size, 7);
  // Keyboard: from the pinned key to the button, Enter checks again.
  const served = (await gw.api('GET', '/api/v1/ledger/checkpoint')).body.vkey as string;
  t.equal(await page.getByLabel('Pinned verifier key').inputValue(), served, "the gateway's own key is filled in");
  await page.getByLabel('Pinned verifier key').focus();
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await verdict(page)
    .getByText(/^Verifies: /)
    .waitFor(WAIT);
  t.same(
    await page.locator('[data-step]').evaluateAll((els) => els.map((e) => e.getAttribute('data-result'))),
    ['ok', 'ok', 'ok'],
    'integrity, signature and inclusion: ok',
  );
  t.same(await seriousViolations(page), [], "axe-core: no serious or critical violation on a trace's page");
  // UPDATE_DOCS=1 (as for docs:openapi) refreshes the screenshot docs/console.md shows.
  if (process.env.UPDATE_DOCS === '1')
    await page.screenshot({ path: new URL('../../../docs/console-trace-proof.png', import.meta.url).pathname, fullPage: true });
  t.equal(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), true, 'no sideways scrolling at 375 px');

  const other = verifierKey({ name: 'governance-gateway.local', publicKey: generateKeyPairSync('ed25519').publicKey });
  await page.getByLabel('Pinned verifier key').fill(other);
  await page.getByRole('button', { name: 'Check proof' }).click();
  await verdict(page).getByText('Does not verify: checkpoint_signature_invalid (checkpoint note: no_signature).').waitFor(WAIT);
  t.equal(await page.locator('[data-step="checkpoint_signature"]').getAttribute('data-result'), 'failed');
  await page.getByLabel('Pinned verifier key').fill('not a key');
  await page.getByRole('button', { name: 'Check proof' }).click();
  await verdict(page).getByText('Does not verify: checkpoint_signature_invalid (the verifier key is malformed).').waitFor(WAIT);
});

t.test('a rewritten trace fails in the browser: plainly, and at the step that catches it', async (t) => {
  const { gw, traces, page } = await setup(t);
  await gw.gateway.checkpointNow();
  await tamper(gw.db, traces[1]!.sequenceNum, false);
  await openTrace(page, gw, traces[1]!.id);
  t.equal(
    await verdict(page).textContent(),
    "Does not verify: integrity_hash_mismatch (the stored fields do not hash to the trace's integrity_hash).",
    'a rewritten field no longer hashes to the integrity hash',
  );
  await tamper(gw.db, traces[3]!.sequenceNum, true);
  await openTrace(page, gw, traces[3]!.id);
  t.equal(
    await verdict(page).textContent(),
    'Does not verify: inclusion_proof_invalid (the inclusion path does not lead from the trace to the checkpoint root).',
    'rehashed, only the signed tree can tell',
  );
  t.same(await page.locator('[data-step]').evaluateAll((els) => els.map((e) => e.getAttribute('data-result'))), ['ok', 'ok', 'failed']);
});
