// What operators read about anchoring: the status route's body, the /healthz subsystem and the
// command center's action item. All of it comes from the epoch rows, so every daemon of one
// database tells the same story whichever of them ran the worker.
import type { EpochJson } from '../../shared/anchor-format.js';
import type { Sql } from '../db/connect.js';
import { epochJson, lastAnchored, openEpochs, recentEpochs } from './epochs.js';

export interface AnchorSettings {
  readonly chainId: number;
  readonly address: string;
  readonly epochSeconds: number;
}

export interface AnchorHealth {
  readonly state: 'ok' | 'degraded' | 'off';
  readonly reason: string | null;
}

export interface AnchorStatus {
  configured: boolean;
  chain_id: number | null;
  address: string | null;
  epoch_seconds: number | null;
  health: AnchorHealth;
  last_anchored: EpochJson | null;
  open: EpochJson[];
  recent: EpochJson[];
}

/** Degraded while an epoch is not anchored and its last attempt failed (or it is FAILED). */
export async function anchorHealth(sql: Sql, settings: AnchorSettings | null): Promise<AnchorHealth> {
  if (!settings) return { state: 'off', reason: 'GATEWAY_ANCHOR_RPC_URL is not set in this daemon' };
  const [stuck] = await sql<{ epoch: string; state: string; last_error: string | null }[]>`
    select epoch, state, last_error from anchor_epochs
    where state <> 'ANCHORED' and (last_error is not null or state = 'FAILED') order by epoch limit 1`;
  if (!stuck) return { state: 'ok', reason: null };
  return { state: 'degraded', reason: `epoch ${stuck.epoch} ${stuck.state}: ${stuck.last_error ?? 'no reason recorded'}` };
}

export async function anchorStatus(sql: Sql, settings: AnchorSettings | null): Promise<AnchorStatus> {
  const [health, last, open, recent] = await Promise.all([
    anchorHealth(sql, settings),
    lastAnchored(sql),
    openEpochs(sql),
    recentEpochs(sql, 10),
  ]);
  return {
    configured: settings !== null,
    chain_id: settings?.chainId ?? null,
    address: settings?.address ?? null,
    epoch_seconds: settings?.epochSeconds ?? null,
    health,
    last_anchored: last && epochJson(last),
    open: open.map(epochJson),
    recent: recent.map(epochJson),
  };
}

/** Epochs a project's operators should look at: open with an error, or FAILED (only when its attestation is on). */
export async function stuckEpochsFor(sql: Sql, projectId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from anchor_epochs
    where state <> 'ANCHORED' and (last_error is not null or state = 'FAILED')
      and exists (select 1 from projects where id = ${projectId} and attestation_enabled)`;
  return row!.n;
}
