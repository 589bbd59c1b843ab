// Debian's headless Chromium (/usr/bin/chromium, apt-get install chromium) driven by playwright-core,
// for the web console's tests: a fresh, empty profile per browser, nothing fetched or synced. A
// missing Chromium fails the test that asked for it (never a skip): CI installs it (.ci/run).
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import type { Test } from 'tap';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with a new empty user data dir, closed and removed at the test's end. */
export async function startBrowser(t: Test, viewport = { width: 1024, height: 800 }): Promise<BrowserContext> {
  await fs.access(CHROMIUM).catch(() => {
    throw new Error(`${CHROMIUM} is missing: apt-get install chromium (the console's browser tests need it)`);
  });
  const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-chromium-'));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: FLAGS, viewport });
  t.teardown(async () => {
    await context.close();
    await fs.rm(profile, { recursive: true, force: true });
  });
  return context;
}

const axeSource = fs.readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/** axe-core's violations of the page as it is now, of serious or critical impact. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await axeSource);
  const result = (await page.evaluate('axe.run(document, { resultTypes: ["violations"] })')) as { violations: AxeViolation[] };
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
}
