// How gatewayctl anchor prints epochs: one table row each, and the fields of one epoch.
import type { EpochJson } from '../shared/anchor-format.js';
import { keyValues, table } from './format.js';
import { safeText } from './trace-output.js';

export type Epoch = EpochJson;

export interface AnchorStatus {
  configured: boolean;
  chain_id: number | null;
  address: string | null;
  epoch_seconds: number | null;
  health: { state: 'ok' | 'degraded' | 'off'; reason: string | null };
  last_anchored: Epoch | null;
  open: Epoch[];
  recent: Epoch[];
}

export function epochTable(epochs: readonly Epoch[]): string {
  return table(
    ['EPOCH', 'STATE', 'LEAVES', 'TX', 'BLOCK', 'ATTEMPTS', 'CREATED', 'LAST ERROR'],
    epochs.map((e) => [
      e.epoch,
      e.state,
      e.leaf_count,
      e.tx_hash,
      e.block_number,
      e.attempts,
      e.created_at,
      e.last_error === null ? null : safeText(e.last_error),
    ]),
  );
}

export function epochFields(e: Epoch): string {
  return keyValues({
    epoch: e.epoch,
    state: e.state,
    root: e.root,
    leaf_count: e.leaf_count,
    chain_id: e.chain_id,
    tx_hash: e.tx_hash,
    transactions_sent: e.tx_hashes.length,
    block_number: e.block_number,
    block_time: e.block_time,
    attempts: e.attempts,
    last_error: e.last_error === null ? null : safeText(e.last_error),
  });
}
