// Stdio servers through the proxy in tests: a gateway with stdio on, registrations of
// server-everything and the hostile program (hostile-stdio-server.ts), a server registered, scanned
// and activated, an SDK client on its proxy URL, and the processes of its sandbox found in /proc.
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestGateway } from './gateway.js';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const NODE_MODULES = path.join(ROOT, 'node_modules');
export const HELPERS = path.join(ROOT, 'dist/test/helpers');
export const EVERYTHING = path.join(NODE_MODULES, '@modelcontextprotocol/server-everything/dist/index.js');
export const STDIO_ON = {
  GATEWAY_STDIO_COMMANDS: '/usr/bin/node',
  GATEWAY_SCAN_TIMEOUT_SECONDS: '60',
  GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS: '60',
};

export const everything = {
  transport: 'stdio',
  name: 'everything',
  command: 'node',
  args: [EVERYTHING, 'stdio'],
  grants: [{ path: NODE_MODULES, mode: 'ro' }],
};
export const hostile = (name: string) => ({
  transport: 'stdio',
  name,
  command: 'node',
  args: [path.join(HELPERS, 'hostile-stdio-server.js')],
  grants: [{ path: HELPERS, mode: 'ro' }],
});

/** Processes whose command line names this server's private directory (bwrap binds it): its sandbox. */
export async function processesOf(gw: TestGateway, serverId: string): Promise<number[]> {
  const marker = path.join(gw.dataDir, 'stdio', serverId);
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0').includes(marker)) pids.push(Number(entry));
  }
  return pids;
}

/** Registered, scanned and activated with `rules` by tool name (ALLOW for the others). */
export async function activeStdio(t: Test, gw: TestGateway, body: Record<string, unknown>, rules: Record<string, string>): Promise<string> {
  const reg = await gw.api('POST', '/api/v1/mcp/servers', { body });
  t.equal(reg.status, 201, reg.status === 201 ? 'registered' : reg.text);
  const scan = await gw.api('POST', `/api/v1/mcp/servers/${reg.body.id}/scan`);
  t.equal(scan.status, 200, scan.status === 200 ? 'scanned' : scan.text);
  const tools = (await gw.api('GET', `/api/v1/mcp/servers/${reg.body.id}/tools`)).body.tools as {
    id: string;
    name: string;
    current_fingerprint: string;
  }[];
  const activate = await gw.api('POST', `/api/v1/mcp/servers/${reg.body.id}/activate`, {
    body: { tools: tools.map((x) => ({ tool_id: x.id, rule: rules[x.name] ?? 'ALLOW', fingerprint: x.current_fingerprint })) },
  });
  t.equal(activate.status, 200, activate.status === 200 ? 'activated' : activate.text);
  return reg.body.id as string;
}

export async function sdkClient(t: Test, gw: TestGateway, serverId: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'stdio-forward-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${gw.url}/api/v1/mcp/proxy/${serverId}`), {
      requestInit: { headers: { authorization: `Bearer ${gw.adminToken}`, ...headers } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

export const textOf = (result: unknown) =>
  (result as { content: { type: string; text?: string }[] }).content.map((c) => c.text ?? c.type).join('\n');
