// A local EVM node for anchoring tests: the anvil binary shipped inside the npm package
// @foundry-rs/anvil-linux-amd64 (no network, no install script), on a free loopback port, London
// rules (what Flare supports), chain id 114 (Coston2) unless told otherwise. The test can stop it
// and start it again on the same port with the same state (--state dumps it on exit) to see what
// the gateway does while its node is gone. Killed at teardown.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import { freeLoopbackPort } from './ports.js';
import os from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';

/** anvil's well-known test account #0 (public: anvil prints it at start; funded with 10,000 ETH). */
export const ANVIL_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
export const ANVIL_ADDRESS_0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';

export interface Anvil {
  readonly url: string;
  readonly chainId: number;
  /** Sends one JSON-RPC request to the node and returns its result (throws on an error answer). */
  rpc(method: string, params?: unknown[]): Promise<unknown>;
  /**
   * The receipt of a transaction, waiting for it: with automining, eth_sendTransaction answers once
   * the transaction is in the pool, and its block may be sealed a moment later.
   */
  receipt(hash: string): Promise<Record<string, string>>;
  stop(): Promise<void>;
  start(): Promise<void>;
  readonly running: boolean;
}

function binary(): string {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve(`@foundry-rs/anvil-${os.platform()}-${os.arch() === 'x64' ? 'amd64' : os.arch()}/package.json`);
  return path.join(path.dirname(pkg), 'bin', 'anvil');
}

export interface AnvilOptions {
  readonly chainId?: number;
  /** Seconds per block; omitted: a block is mined for every transaction. */
  readonly blockTime?: number;
}

export async function startAnvil(t: Test, options: AnvilOptions = {}): Promise<Anvil> {
  const chainId = options.chainId ?? 114;
  const port = await freeLoopbackPort();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-anvil-'));
  const statePath = path.join(dir, 'state.json');
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | null = null;
  let nextId = 1;

  async function rpc(method: string, params: unknown[] = []): Promise<unknown> {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    const body = (await res.json()) as { result?: unknown; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result;
  }

  async function start(): Promise<void> {
    if (child) return;
    const args = [
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--chain-id',
      String(chainId),
      '--hardfork',
      'london',
      '--silent',
      '--state',
      statePath,
    ];
    if (options.blockTime !== undefined) args.push('--block-time', String(options.blockTime));
    const proc = spawn(binary(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
    });
    child = proc;
    const deadline = Date.now() + 20_000;
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`anvil exited with ${proc.exitCode}: ${stderr}`);
      try {
        if (Number(await rpc('eth_chainId')) === chainId) return;
      } catch {
        /* not listening yet */
      }
      if (Date.now() > deadline) throw new Error(`anvil did not answer on ${url}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async function stop(): Promise<void> {
    const proc = child;
    if (!proc) return;
    child = null;
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    proc.kill('SIGINT'); // SIGINT lets anvil write --state before it exits
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  }

  async function receipt(hash: string): Promise<Record<string, string>> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const found = (await rpc('eth_getTransactionReceipt', [hash])) as Record<string, string> | null;
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no receipt for ${hash} within 20 s`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  t.teardown(async () => {
    await stop();
    await fs.rm(dir, { recursive: true, force: true });
  });
  await start();
  return {
    url,
    chainId,
    rpc,
    receipt,
    stop,
    start,
    get running() {
      return child !== null;
    },
  };
}
