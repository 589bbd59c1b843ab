// The steps the Servers page's browser tests share: sign in with a key and open the page (or one
// server), connect an SDK client to a server's proxy URL, and scan a server again.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Page } from 'playwright-core';
import type { Test } from 'tap';
import type { ProxyGateway } from './mcp-proxy.js';

// Playwright's own waits end at this bound rather than hang; it measures nothing.
export const WAIT = { timeout: 60_000 };

export async function signIn(page: Page, px: ProxyGateway, key: string, serverId?: string): Promise<void> {
  await page.goto(`${px.url}/console`);
  await page.getByLabel('API key or user token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Approvals' }).waitFor(WAIT);
  await page.getByRole('link', { name: 'Servers' }).click();
  await page.getByRole('heading', { name: 'Servers', level: 1 }).waitFor(WAIT);
  if (serverId) {
    await page.locator(`li[data-server-id="${serverId}"] a`).click();
    await page.getByRole('heading', { name: /^Waiting for admission/ }).waitFor(WAIT);
  }
}

export async function connectClient(t: Test, px: ProxyGateway, serverId: string): Promise<Client> {
  const client = new Client({ name: 'servers-page-test', version: '1.0.0' });
  const requestInit = { headers: { authorization: `Bearer ${px.gw.adminToken}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${px.url}/api/v1/mcp/proxy/${serverId}`), { requestInit }));
  t.teardown(() => client.close());
  return client;
}

export async function rescan(px: ProxyGateway, id: string): Promise<void> {
  const scan = await px.gw.api('POST', `/api/v1/mcp/servers/${id}/scan`);
  if (scan.body?.scanned !== true) throw new Error(`scan: ${scan.status} ${scan.text}`);
}
