// Anchoring in one daemon: the node client made once at start with the key app.ts loaded (a bad
// key file stops start-up), the periodic worker every GATEWAY_ANCHOR_EPOCH_SECONDS, run-now for the route, and a
// clean stop (a cycle waiting for a receipt is interrupted; the epoch is resumed by the next one).
import type { PrivateKeyAccount } from 'viem/accounts';
import type { EpochJson } from '../../shared/anchor-format.js';
import type { AnchorConfig } from '../config-anchor.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import { every, type Periodic } from '../workers/periodic.js';
import { epochJson } from './epochs.js';
import type { AnchorSettings } from './status.js';
import type { SubmitContext } from './submit.js';
import { runCycle, withAnchorLock } from './worker.js';

export interface AnchorRun {
  /** false when another daemon held the lock (ticks only; run-now waits for it). */
  readonly ran: boolean;
  readonly epoch: EpochJson | null;
}

export interface AnchorService {
  /** null when anchoring is off in this daemon. */
  readonly settings: AnchorSettings | null;
  runNow(): Promise<AnchorRun>;
  start(): void;
  stop(): Promise<void>;
}

/**
 * `account` is the key loaded at start (key.ts), before the database is touched. The chain client
 * (and with it viem) is imported only when this daemon anchors.
 */
export async function createAnchorService(
  config: AnchorConfig | null,
  account: PrivateKeyAccount | null,
  sql: Sql,
  log: Logger,
): Promise<AnchorService> {
  if (!config || !account) {
    return { settings: null, runNow: async () => ({ ran: false, epoch: null }), start() {}, async stop() {} };
  }
  const { createChainClient } = await import('./chain.js');
  const aborter = new AbortController();
  const ctx: SubmitContext = {
    sql,
    chain: createChainClient(config.rpcUrl, config.chainId, account),
    address: account.address,
    chainId: config.chainId,
    maxAttempts: config.maxAttempts,
    receiptTimeoutMs: config.receiptTimeoutMs,
    signal: aborter.signal,
    log: log.child({ subsystem: 'anchor' }),
  };
  const run = async (wait: boolean): Promise<AnchorRun> => {
    const done = await withAnchorLock(sql, wait, async () => ({ epoch: await runCycle(ctx) }));
    return done ? { ran: true, epoch: done.epoch && epochJson(done.epoch) } : { ran: false, epoch: null };
  };
  let worker: Periodic | null = null;
  return {
    settings: { chainId: config.chainId, address: account.address, epochSeconds: config.epochMs / 1000 },
    runNow: () => run(true),
    start() {
      worker ??= every(config.epochMs, config.epochMs, 'anchor', log, () => run(false));
    },
    async stop() {
      aborter.abort();
      await worker?.stop();
    },
  };
}
