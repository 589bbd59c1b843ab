// The ledger anchoring settings (GATEWAY_ANCHOR_*): on exactly when the RPC URL is set, and then the
// chain id and the key file are required. Part of config.ts's one schema (spread into it), like
// config-identity.ts; daemon/anchor/ reads the resulting AnchorConfig.
import path from 'node:path';
import { z } from 'zod';
import { positiveInt } from './config-values.js';

export const anchorEnv = {
  GATEWAY_ANCHOR_RPC_URL: z
    .string()
    .url()
    .refine((v) => /^https?:\/\//i.test(v), 'expected an http(s) JSON-RPC URL')
    .optional(),
  GATEWAY_ANCHOR_CHAIN_ID: z.coerce.number().int().positive().optional(),
  GATEWAY_ANCHOR_KEY_FILE: z.string().min(1).optional(),
  GATEWAY_ANCHOR_EPOCH_SECONDS: positiveInt(600),
  GATEWAY_ANCHOR_MAX_ATTEMPTS: positiveInt(5),
  GATEWAY_ANCHOR_RECEIPT_TIMEOUT_SECONDS: positiveInt(60),
};

type AnchorEnv = z.output<z.ZodObject<typeof anchorEnv>>;

export interface AnchorConfig {
  readonly rpcUrl: string;
  /** The chain the node must report (eth_chainId) before anything is sent. */
  readonly chainId: number;
  /** File holding the 0x-prefixed secp256k1 private key that signs anchor transactions. */
  readonly keyFile: string;
  readonly epochMs: number;
  /** Transactions sent per epoch and cycle (the first plus same-nonce replacements) before FAILED. */
  readonly maxAttempts: number;
  readonly receiptTimeoutMs: number;
}

/** The settings' cross-rule: with the RPC URL, the chain id and the key file are required. */
export function checkAnchorEnv(e: AnchorEnv, ctx: z.RefinementCtx): void {
  if (e.GATEWAY_ANCHOR_RPC_URL === undefined) return;
  for (const name of ['GATEWAY_ANCHOR_CHAIN_ID', 'GATEWAY_ANCHOR_KEY_FILE'] as const) {
    if (e[name] === undefined) ctx.addIssue({ code: 'custom', path: [name], message: 'required when GATEWAY_ANCHOR_RPC_URL is set' });
  }
}

/** Null when GATEWAY_ANCHOR_RPC_URL is unset (anchoring off in this daemon). */
export function anchorConfigOf(e: AnchorEnv): AnchorConfig | null {
  if (e.GATEWAY_ANCHOR_RPC_URL === undefined) return null;
  return Object.freeze({
    rpcUrl: e.GATEWAY_ANCHOR_RPC_URL,
    chainId: e.GATEWAY_ANCHOR_CHAIN_ID!,
    keyFile: path.resolve(e.GATEWAY_ANCHOR_KEY_FILE!),
    epochMs: e.GATEWAY_ANCHOR_EPOCH_SECONDS * 1000,
    maxAttempts: e.GATEWAY_ANCHOR_MAX_ATTEMPTS,
    receiptTimeoutMs: e.GATEWAY_ANCHOR_RECEIPT_TIMEOUT_SECONDS * 1000,
  });
}
