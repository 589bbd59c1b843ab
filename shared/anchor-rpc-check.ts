// The one step of a proof bundle that needs the chain: is the anchor transaction there, carrying
// the bundle's calldata on the bundle's chain, and did it succeed? One JSON-RPC batch
// (eth_getTransactionByHash + eth_getTransactionReceipt) to a node the reader chooses; used by
// gatewayctl traces check-proof --rpc, never by the daemon's own verdict.
//
//   anchor_tx_not_found     the node does not know the transaction
//   anchor_tx_mismatch      its input is not anchor.calldata, its chainId not anchor.chain_id, or it
//                           was mined in another block than anchor.block_number
//   anchor_tx_failed        no receipt (not mined), or the receipt's status is not 0x1
//   anchor_rpc_unreachable  no usable answer (connection, HTTP status, not JSON-RPC, an error
//                           answer): nothing was checked, and that fails closed
import { request } from 'undici';
import type { AnchorProof, CheckResult } from './proof-check.js';

const TIMEOUT_MS = 15_000;
const MAX_ANSWER_BYTES = 1_000_000;

export interface AnchorTxVerdict {
  readonly result: Extract<CheckResult, 'ok' | 'failed'>;
  readonly reason: string | null;
  readonly detail: string | null;
}

interface RpcTx {
  hash?: unknown;
  input?: unknown;
  chainId?: unknown;
  blockNumber?: unknown;
}
interface RpcReceipt {
  status?: unknown;
  blockNumber?: unknown;
}

class Unreachable extends Error {}

const fail = (reason: string, detail: string): AnchorTxVerdict => ({ result: 'failed', reason, detail });

/** One bounded POST; any transport failure (by undici's error code) is Unreachable. */
async function post(rpcUrl: string, body: string): Promise<{ status: number; text: string }> {
  try {
    const res = await request(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      headersTimeout: TIMEOUT_MS,
      bodyTimeout: TIMEOUT_MS,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > MAX_ANSWER_BYTES) {
        res.body.destroy();
        throw new Unreachable(`${rpcUrl}: the answer is larger than ${MAX_ANSWER_BYTES} bytes`);
      }
      chunks.push(chunk as Buffer);
    }
    return { status: res.statusCode, text: Buffer.concat(chunks).toString('utf8') };
  } catch (err) {
    if (err instanceof Unreachable) throw err;
    throw new Unreachable(`${rpcUrl}: ${(err as { code?: string }).code ?? (err as Error).message}`);
  }
}

/** Posts the batch and returns [tx, receipt] results (null: unknown to the node); throws Unreachable. */
async function fetchTx(rpcUrl: string, txHash: string): Promise<[RpcTx | null, RpcReceipt | null]> {
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'eth_getTransactionByHash', params: [txHash] },
    { jsonrpc: '2.0', id: 2, method: 'eth_getTransactionReceipt', params: [txHash] },
  ];
  const { status, text } = await post(rpcUrl, JSON.stringify(batch));
  if (status !== 200) throw new Unreachable(`${rpcUrl}: HTTP ${status}`);
  let answers: unknown;
  try {
    answers = JSON.parse(text);
  } catch {
    throw new Unreachable(`${rpcUrl}: the answer is not JSON`);
  }
  if (!Array.isArray(answers)) throw new Unreachable(`${rpcUrl}: not a JSON-RPC batch answer`);
  const byId = (id: number) => {
    const a = answers.find((x: { id?: unknown }) => x !== null && typeof x === 'object' && x.id === id) as
      | { result?: unknown; error?: { message?: unknown } }
      | undefined;
    if (!a || a.error !== undefined || !('result' in a))
      throw new Unreachable(`${rpcUrl}: ${batch[id - 1]!.method} ${a?.error ? `failed: ${String(a.error.message)}` : 'went unanswered'}`);
    return (a.result ?? null) as object | null;
  };
  return [byId(1), byId(2)];
}

const sameHex = (a: unknown, b: string) => typeof a === 'string' && a.toLowerCase() === b.toLowerCase();
const hexNumber = (v: unknown): bigint | null => (typeof v === 'string' && /^0x[0-9a-fA-F]+$/.test(v) ? BigInt(v) : null);

/** Checks the bundle's anchor transaction on the node at rpcUrl (one batch request). */
export async function checkAnchorTx(anchor: AnchorProof, rpcUrl: string): Promise<AnchorTxVerdict> {
  let tx: RpcTx | null;
  let receipt: RpcReceipt | null;
  try {
    [tx, receipt] = await fetchTx(rpcUrl, anchor.tx_hash);
  } catch (err) {
    if (err instanceof Unreachable)
      return fail('anchor_rpc_unreachable', `no usable answer from the RPC node, nothing checked on chain: ${err.message}`);
    throw err;
  }
  if (tx === null) return fail('anchor_tx_not_found', `the node does not know transaction ${anchor.tx_hash}`);
  if (!sameHex(tx.hash, anchor.tx_hash)) return fail('anchor_tx_mismatch', 'the node answered with another transaction');
  if (!sameHex(tx.input, anchor.calldata)) return fail('anchor_tx_mismatch', "the transaction's input is not the bundle's anchor calldata");
  if (hexNumber(tx.chainId) !== BigInt(anchor.chain_id)) {
    return fail(
      'anchor_tx_mismatch',
      `the transaction is for chain ${String(hexNumber(tx.chainId) ?? 'unknown')}, the bundle says ${anchor.chain_id}`,
    );
  }
  if (receipt === null) return fail('anchor_tx_failed', 'the transaction has no receipt: it is not mined');
  if (receipt.status !== '0x1')
    return fail('anchor_tx_failed', `the transaction's receipt status is ${String(receipt.status)}, not 0x1 (success)`);
  const block = hexNumber(receipt.blockNumber);
  if (anchor.block_number !== null && block !== BigInt(anchor.block_number)) {
    return fail('anchor_tx_mismatch', `the transaction is in block ${String(block)}, the bundle says ${anchor.block_number}`);
  }
  return { result: 'ok', reason: null, detail: null };
}
