// What one upstream exchange of the proxy is: the request forward.ts sends (RelayRequest), what it
// learnt (RelayResult), the proxy's limits on it from the configuration, and DROP, what a transform
// returns for a message the client must not see.
import type { Dispatcher } from 'undici';
import type { Config } from '../../config.js';
import type { ExchangeLimits } from '../client/http-exchange.js';
import type { Framed } from '../client/framing.js';

export type UpstreamLimits = ExchangeLimits;

/** The proxy's limits on one upstream exchange, from the configuration. */
export function upstreamLimits(config: Config, dispatcher: Dispatcher): UpstreamLimits {
  return {
    dispatcher,
    timeoutMs: config.upstreamTimeoutMs,
    idleTimeoutMs: config.upstreamIdleTimeoutMs,
    callTimeoutMs: config.upstreamCallTimeoutMs,
    responseLimitBytes: config.upstreamResponseLimitBytes,
  };
}

export interface RelayResult {
  readonly upstreamStatus: number | null;
  /** ok | rpc_error | unreachable | timeout | invalid_response | http_error | client_gone */
  readonly outcome: string;
  readonly rpcCode: number | null;
  readonly latencyMs: number;
}

export interface RelayRequest {
  readonly url: URL;
  readonly method: 'POST' | 'GET' | 'DELETE';
  readonly headers: Record<string, string>;
  readonly body?: string;
  /** The JSON-RPC id the caller waits an answer for; undefined for notifications and responses. */
  readonly rpcId: string | number | undefined;
  /** The request's JSON-RPC method (a tools/call may take longer to answer its headers). */
  readonly rpcMethod?: string;
  /**
   * Rewrites each classified message of the answer (tools/list filtering, content inspection); DROP
   * keeps it from the client. With it, SSE events are parsed, framed and emitted again one by one.
   */
  readonly transform?: (framed: Framed) => unknown | Promise<unknown>;
  /** Headers the proxy adds to the answer (governance headers). */
  readonly extraHeaders: Readonly<Record<string, string>>;
  /** Called with an Mcp-Session-Id the upstream answered with, before the answer is sent on. */
  readonly onSession?: (sessionId: string) => Promise<void>;
  /** Called with the upstream's status before anything of the answer is sent on. */
  readonly onStatus?: (status: number) => Promise<void>;
  /** Called when the upstream answered 404 to a request that carried a session id. */
  readonly onSessionGone?: () => Promise<void>;
}

/** What a transform returns for a message the client must not see (a server request the gateway refused). */
export const DROP: unique symbol = Symbol('drop');
