// One epoch's way onto the chain: PENDING -> SUBMITTED (a signed transaction sent, its hash kept)
// -> ANCHORED once a receipt of any transaction sent for it succeeds. No receipt within the
// receipt timeout: the same nonce is sent again with fees raised by at least 12.5% (a
// replacement), at most maxAttempts transactions per cycle, then FAILED (re-submitted by the next
// cycle). A node that is down, on another chain or refusing (no funds) leaves the state as it is
// and the reason in last_error; nothing here blocks or loses a decision.
import { encodeAnchorCalldata } from '../../shared/anchor-format.js';
import type { Sql } from '../db/connect.js';
import type { Logger } from '../log.js';
import type { ChainClient, Fees, Receipt } from './chain.js';
import { epochByNumber, recordAnchored, recordError, recordFailed, recordSent, type EpochRow } from './epochs.js';

export interface SubmitContext {
  readonly sql: Sql;
  readonly chain: ChainClient;
  readonly address: string;
  readonly chainId: number;
  readonly maxAttempts: number;
  readonly receiptTimeoutMs: number;
  /** Aborted at shutdown: the epoch is left as recorded and resumed by the next cycle. */
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** Moves one open epoch as far as it goes now; a failure is stored on the epoch, not thrown. */
export async function advanceEpoch(ctx: SubmitContext, epoch: EpochRow): Promise<EpochRow> {
  try {
    return await advance(ctx, epoch);
  } catch (err) {
    if (ctx.signal.aborted) return epochByNumber(ctx.sql, epoch.epoch);
    const reason = ctx.chain.describeError(err);
    ctx.log.warn({ epoch: Number(epoch.epoch), reason }, 'anchor epoch not advanced; kept for the next cycle');
    return recordError(ctx.sql, epoch.epoch, reason);
  }
}

async function advance(ctx: SubmitContext, epoch: EpochRow): Promise<EpochRow> {
  if (Number(epoch.chain_id) !== ctx.chainId) {
    throw new Error(
      `epoch ${epoch.epoch} was built for chain ${epoch.chain_id}; this daemon anchors on chain ${ctx.chainId}; nothing sent`,
    );
  }
  const nodeChain = await ctx.chain.chainId();
  if (nodeChain !== ctx.chainId)
    throw new Error(`the node reports chain id ${nodeChain} but GATEWAY_ANCHOR_CHAIN_ID is ${ctx.chainId}; nothing sent`);
  const mined = await findReceipt(ctx, epoch.tx_hashes);
  if (mined) return settle(ctx, epoch, mined);
  let current = epoch;
  for (let attempt = 0; attempt < ctx.maxAttempts; attempt++) {
    const sent = await sendOnce(ctx, current);
    if ('receipt' in sent) return settle(ctx, current, sent.receipt);
    current = sent.epoch;
    const receipt = await waitForReceipt(ctx, current.tx_hashes);
    if (receipt) return settle(ctx, current, receipt);
    if (ctx.signal.aborted) return current;
  }
  const error = `no receipt for ${ctx.maxAttempts} transaction(s) at nonce ${current.nonce}, each waited ${ctx.receiptTimeoutMs / 1000} s; re-submitted at the next cycle`;
  ctx.log.warn({ epoch: Number(current.epoch), attempts: current.attempts }, 'anchor epoch FAILED; re-submitted at the next cycle');
  return recordFailed(ctx.sql, current.epoch, error);
}

/** At least 12.5% above `v` (what nodes require of a replacement), rounded up. */
const raised = (v: bigint): bigint => v + (v + 7n) / 8n + 1n;
const max = (a: bigint, b: bigint): bigint => (a > b ? a : b);

function replacementFees(epoch: EpochRow, estimate: Fees): Fees {
  const priority = max(raised(BigInt(epoch.max_priority_fee_per_gas ?? '0')), estimate.maxPriorityFeePerGas);
  return {
    maxPriorityFeePerGas: priority,
    maxFeePerGas: max(max(raised(BigInt(epoch.max_fee_per_gas ?? '0')), estimate.maxFeePerGas), priority),
  };
}

/** Signs and sends one transaction: a replacement while the epoch's nonce is still open, else a fresh nonce. */
async function sendOnce(ctx: SubmitContext, epoch: EpochRow): Promise<{ epoch: EpochRow } | { receipt: Receipt }> {
  const data = encodeAnchorCalldata({ epoch: BigInt(epoch.epoch), root: epoch.root });
  const [latest, pending, estimate, gas] = await Promise.all([
    ctx.chain.nonce('latest'),
    ctx.chain.nonce('pending'),
    ctx.chain.fees(),
    ctx.chain.estimateGas(data),
  ]);
  const replacing = epoch.nonce !== null && latest <= Number(epoch.nonce);
  if (epoch.nonce !== null && !replacing) {
    // The nonce was used meanwhile: by one of ours (mined since the last look) or by another sender.
    const late = await findReceipt(ctx, epoch.tx_hashes);
    if (late) return { receipt: late };
  }
  const nonce = replacing ? Number(epoch.nonce) : pending;
  const fees = replacing ? replacementFees(epoch, estimate) : estimate;
  const balance = await ctx.chain.balance();
  if (balance < gas * fees.maxFeePerGas) {
    throw new Error(
      `insufficient funds: ${ctx.address} holds ${balance} wei; one anchor transaction needs up to ${gas * fees.maxFeePerGas} wei (gas ${gas} x max fee ${fees.maxFeePerGas} wei); fund the address`,
    );
  }
  const { raw, hash } = await ctx.chain.sign({ nonce, gas, fees, data });
  const tx = { hash, from: ctx.address, nonce, fees };
  try {
    await ctx.chain.sendRaw(raw);
  } catch (err) {
    // No answer: the node may have taken it, so it is recorded as sent and its receipt looked for.
    if (ctx.chain.isTransportError(err))
      return { epoch: await recordSent(ctx.sql, epoch.epoch, tx, `sent without confirmation: ${ctx.chain.describeError(err)}`) };
    throw err;
  }
  ctx.log.info({ epoch: Number(epoch.epoch), hash, nonce, replacement: replacing }, 'anchor transaction sent');
  return { epoch: await recordSent(ctx.sql, epoch.epoch, tx, null) };
}

/**
 * The successful receipt of any transaction sent for the epoch (newest first), or null while none
 * is mined. A reverted one (not expected of a plain transfer to oneself) only used up its nonce.
 */
async function findReceipt(ctx: SubmitContext, hashes: readonly string[]): Promise<Receipt | null> {
  for (const hash of [...hashes].reverse()) {
    const receipt = await ctx.chain.receipt(hash as `0x${string}`);
    if (receipt?.success) return receipt;
  }
  return null;
}

async function waitForReceipt(ctx: SubmitContext, hashes: readonly string[]): Promise<Receipt | null> {
  const deadline = Date.now() + ctx.receiptTimeoutMs;
  const pollMs = Math.min(1000, Math.max(100, ctx.receiptTimeoutMs / 10));
  for (;;) {
    const receipt = await findReceipt(ctx, hashes);
    if (receipt || Date.now() >= deadline || ctx.signal.aborted) return receipt;
    await pause(pollMs, ctx.signal);
  }
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

async function settle(ctx: SubmitContext, epoch: EpochRow, receipt: Receipt): Promise<EpochRow> {
  const blockTime = await ctx.chain.blockTime(receipt.blockNumber);
  ctx.log.info({ epoch: Number(epoch.epoch), hash: receipt.hash, block: Number(receipt.blockNumber) }, 'anchor epoch ANCHORED');
  return recordAnchored(ctx.sql, epoch.epoch, receipt.hash, receipt.blockNumber, blockTime);
}
