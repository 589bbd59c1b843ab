// The EVM node as the anchor worker sees it: viem public and wallet clients over one HTTP
// JSON-RPC endpoint, every request bounded in time and never retried here (the worker's next
// cycle is the retry). Chain 14 and 114 are viem's `flare` and `flareTestnet`; any other id gets a
// chain object of its own. Errors come back as short sentences without the endpoint's URL (it may
// carry a provider's API key).
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  http,
  HttpRequestError,
  keccak256,
  RpcRequestError,
  TimeoutError,
  TransactionReceiptNotFoundError,
  type Chain,
  type Hex,
} from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { flare, flareTestnet } from 'viem/chains';

/** Longest one JSON-RPC request may take. */
export const RPC_TIMEOUT_MS = 15_000;

export interface Fees {
  readonly maxFeePerGas: bigint;
  readonly maxPriorityFeePerGas: bigint;
}

export interface AnchorTx {
  readonly nonce: number;
  readonly gas: bigint;
  readonly fees: Fees;
  readonly data: Hex;
}

export interface Receipt {
  readonly hash: Hex;
  readonly success: boolean;
  readonly blockNumber: bigint;
}

export interface ChainClient {
  chainId(): Promise<number>;
  nonce(state: 'latest' | 'pending'): Promise<number>;
  balance(): Promise<bigint>;
  fees(): Promise<Fees>;
  estimateGas(data: Hex): Promise<bigint>;
  /** Signs locally; the hash is known before anything is sent. */
  sign(tx: AnchorTx): Promise<{ raw: Hex; hash: Hex }>;
  sendRaw(raw: Hex): Promise<Hex>;
  receipt(hash: Hex): Promise<Receipt | null>;
  blockTime(blockNumber: bigint): Promise<Date>;
  /** The node could not be reached or did not answer in time (not a refusal). */
  isTransportError(err: unknown): boolean;
  /** One line about a failed node request, without the endpoint URL or request parameters. */
  describeError(err: unknown): string;
}

export function chainFor(chainId: number, rpcUrl: string): Chain {
  if (chainId === flare.id) return flare;
  if (chainId === flareTestnet.id) return flareTestnet;
  return defineChain({
    id: chainId,
    name: `EVM chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

export function createChainClient(rpcUrl: string, chainId: number, account: PrivateKeyAccount): ChainClient {
  const chain = chainFor(chainId, rpcUrl);
  const transport = http(rpcUrl, { timeout: RPC_TIMEOUT_MS, retryCount: 0 });
  const pub = createPublicClient({ chain, transport });
  const wallet = createWalletClient({ chain, transport, account });
  const address = account.address;
  return {
    isTransportError,
    describeError: describeChainError,
    chainId: () => pub.getChainId(),
    nonce: (state) => pub.getTransactionCount({ address, blockTag: state }),
    balance: () => pub.getBalance({ address }),
    fees: async () => {
      const f = await pub.estimateFeesPerGas({ type: 'eip1559' });
      return { maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas };
    },
    estimateGas: (data) => pub.estimateGas({ account: address, to: address, value: 0n, data }),
    async sign(tx) {
      // The chain id is asserted against the node by the worker before it signs, so it is not
      // fetched again here (chain: null); the signed transaction still carries chain.id.
      const raw = await wallet.signTransaction({
        account,
        chain: null,
        chainId: chain.id,
        type: 'eip1559',
        to: address,
        value: 0n,
        data: tx.data,
        nonce: tx.nonce,
        gas: tx.gas,
        maxFeePerGas: tx.fees.maxFeePerGas,
        maxPriorityFeePerGas: tx.fees.maxPriorityFeePerGas,
      } as Parameters<typeof wallet.signTransaction>[0]);
      return { raw, hash: keccak256(raw) };
    },
    sendRaw: (raw) => pub.sendRawTransaction({ serializedTransaction: raw }),
    async receipt(hash) {
      try {
        const r = await pub.getTransactionReceipt({ hash });
        return { hash, success: r.status === 'success', blockNumber: r.blockNumber };
      } catch (err) {
        if (err instanceof BaseError && err.walk((e) => e instanceof TransactionReceiptNotFoundError)) return null;
        throw err;
      }
    },
    async blockTime(blockNumber) {
      const block = await pub.getBlock({ blockNumber });
      return new Date(Number(block.timestamp) * 1000);
    },
  };
}

/** The node may or may not have received the request (no answer): a send must count as possibly sent. */
function isTransportError(err: unknown): boolean {
  return err instanceof BaseError && Boolean(err.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError));
}

function describeChainError(err: unknown): string {
  if (!(err instanceof BaseError)) return err instanceof Error ? err.message : String(err);
  if (err.walk((e) => e instanceof TimeoutError)) return `the node did not answer within ${RPC_TIMEOUT_MS / 1000} s`;
  const httpErr = err.walk((e) => e instanceof HttpRequestError) as HttpRequestError | null;
  if (httpErr) return `the node is unreachable (${httpErr.status ? `HTTP ${httpErr.status}` : httpErr.details || 'no answer'})`;
  const rpcErr = err.walk((e) => e instanceof RpcRequestError) as RpcRequestError | null;
  if (rpcErr) return `the node refused the request: ${rpcErr.details || rpcErr.shortMessage}`;
  return err.shortMessage || err.message.split('\n')[0]!;
}
