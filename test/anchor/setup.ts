// What the anchoring tests share: a key file (0600, in a temp dir), a test gateway wired to an
// anvil node, a second project, traces and their checkpoints, and quick reads of the chain.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { createProjectRows } from '../../daemon/project/bootstrap.js';
import { ANVIL_KEY_0, type Anvil } from '../helpers/anvil.js';
import { startTestGateway, type TestGateway } from '../helpers/gateway.js';

export async function writeKeyFile(t: Test, content: string = ANVIL_KEY_0): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-anchor-key-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'anchor.key');
  await fs.writeFile(file, `${content}\n`, { mode: 0o600 });
  return file;
}

export function anchorEnv(node: Anvil, keyFile: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    GATEWAY_ANCHOR_RPC_URL: node.url,
    GATEWAY_ANCHOR_CHAIN_ID: String(node.chainId),
    GATEWAY_ANCHOR_KEY_FILE: keyFile,
    // The tests run every cycle themselves (run-now) and sign checkpoints with checkpointNow().
    GATEWAY_ANCHOR_EPOCH_SECONDS: '3600',
    GATEWAY_CHECKPOINT_INTERVAL_SECONDS: '3600',
    GATEWAY_ANCHOR_RECEIPT_TIMEOUT_SECONDS: '5',
    ...extra,
  };
}

export async function anchoredGateway(
  t: Test,
  node: Anvil,
  options: { key?: string; env?: Record<string, string>; databaseUrl?: string } = {},
): Promise<TestGateway> {
  const keyFile = await writeKeyFile(t, options.key);
  return startTestGateway(t, { databaseUrl: options.databaseUrl, env: anchorEnv(node, keyFile, options.env) });
}

/** Project `id` with attestation on or off (rows written the way bootstrap writes `default`). */
export async function addProject(gw: TestGateway, id: string, attestation: boolean): Promise<void> {
  await gw.gateway.sql.begin((tx) => createProjectRows(tx, id, `project ${id}`));
  await gw.db`update projects set attestation_enabled = ${attestation} where id = ${id}`;
}

export async function seedTraces(gw: TestGateway, project: string, n: number) {
  const out = [];
  for (let i = 0; i < n; i++)
    out.push(await gw.gateway.writer.append(project, { traceType: 'VERIFY', decision: 'PASSED', content: { display: `prompt ${i}` } }));
  return out;
}

export async function runNow(gw: TestGateway, token?: string) {
  return gw.api('POST', '/api/v1/ledger/anchor/run', token === undefined ? {} : { token });
}

export async function epochCount(gw: TestGateway): Promise<{ epochs: number; leaves: number }> {
  const [row] =
    await gw.db`select (select count(*) from anchor_epochs)::int as epochs, (select count(*) from anchor_epoch_leaves)::int as leaves`;
  return row as { epochs: number; leaves: number };
}

export async function nonceOf(node: Anvil, address: string): Promise<number> {
  return Number(await node.rpc('eth_getTransactionCount', [address, 'latest']));
}
