// The small typed set every failure of the MCP client maps to, and how each reads as a scan
// outcome of the spec (Scan state table). Transport failures are mapped by undici's or the
// operating system's error `code`, never by message text.
import { deadlineDetail } from './deadline.js';
import { UpstreamForbiddenError } from './ssrf-guard.js';

export type McpFailureKind =
  | 'unreachable' // could not connect, or the connection broke
  | 'timeout' // connect + first byte, idle body, or the total time limit passed
  | 'invalid_response' // not JSON / not JSON-RPC / not the MCP shape expected
  | 'too_large' // one JSON answer or one SSE event over the byte limit, or too many pages
  | 'http_error' // a status outside 2xx (other than 401/403); `status` set
  | 'auth_failed' // 401 or 403
  | 'rpc_error' // an in-band JSON-RPC error answer (HTTP 2xx); `rpc` set
  | 'forbidden_address' // refused by the SSRF guard before any packet reached the server
  | 'auth_unsupported' // the server's auth_method cannot be attached; nothing was sent
  | 'auth_token_missing' // the auth_method needs a secret that is not configured; nothing was sent
  | 'aborted'; // the caller cancelled (its signal), not an upstream fault

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export class McpClientError extends Error {
  readonly kind: McpFailureKind;
  /** HTTP status, when the failure is an answer of the server. */
  readonly status: number | undefined;
  /** The JSON-RPC error the server answered with, also on http_error when its body carried one. */
  readonly rpc: JsonRpcErrorObject | undefined;
  /** undici's or the system's error code, for transport failures. */
  readonly code: string | undefined;

  constructor(
    kind: McpFailureKind,
    detail: string,
    extra: { status?: number; rpc?: JsonRpcErrorObject; code?: string; cause?: unknown } = {},
  ) {
    super(detail, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'McpClientError';
    this.kind = kind;
    this.status = extra.status;
    this.rpc = extra.rpc;
    this.code = extra.code;
  }
}

export type ScanOutcome =
  | { readonly state: 'failed'; readonly reason: 'unreachable' | 'bad_status' | 'rpc_error' | 'invalid_response' }
  | { readonly state: 'not_run'; readonly reason: 'upstream_url_forbidden' | 'auth_method_unsupported' | 'auth_token_missing' };

/** How a failure reads in the spec's scan tables; null for a cancellation (no outcome to record). */
export function scanOutcomeOf(kind: McpFailureKind): ScanOutcome | null {
  switch (kind) {
    case 'unreachable':
    case 'timeout':
      return { state: 'failed', reason: 'unreachable' };
    case 'invalid_response':
    case 'too_large':
      return { state: 'failed', reason: 'invalid_response' };
    case 'http_error':
    case 'auth_failed':
      return { state: 'failed', reason: 'bad_status' };
    case 'rpc_error':
      return { state: 'failed', reason: 'rpc_error' };
    case 'forbidden_address':
      return { state: 'not_run', reason: 'upstream_url_forbidden' };
    case 'auth_unsupported':
      return { state: 'not_run', reason: 'auth_method_unsupported' };
    case 'auth_token_missing':
      return { state: 'not_run', reason: 'auth_token_missing' };
    case 'aborted':
      return null;
  }
}

const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

// undici's codes for a wrong call: bugs of ours, never an upstream fault.
const MISUSE_CODES = new Set(['UND_ERR_INVALID_ARG', 'UND_ERR_INVALID_RETURN_VALUE', 'UND_ERR_NOT_SUPPORTED']);

function* causes(err: unknown): Generator<object> {
  for (let e = err, depth = 0; e !== null && typeof e === 'object' && depth < 5; e = (e as { cause?: unknown }).cause, depth += 1) yield e;
}

function codeOf(err: unknown): string | undefined {
  for (const e of causes(err)) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

function abortKind(signal: AbortSignal): McpFailureKind {
  const reason: unknown = signal.reason;
  return reason instanceof DOMException && reason.name === 'TimeoutError' ? 'timeout' : 'aborted';
}

/**
 * Turns whatever an exchange threw into an McpClientError. `signal` is the exchange's own signal:
 * once it fired, its reason decides (our time limit or the caller's cancellation), whatever
 * undici made of it. An error without a code, or with a code undici uses for a wrong call, is a
 * bug here rather than an upstream fault, and is rethrown.
 */
export function toClientError(err: unknown, signal: AbortSignal): McpClientError {
  if (err instanceof McpClientError) return err;
  const forbidden = [...causes(err)].find((e): e is UpstreamForbiddenError => e instanceof UpstreamForbiddenError);
  if (forbidden) return new McpClientError('forbidden_address', forbidden.message, { code: forbidden.code, cause: err });
  if (signal.aborted) {
    const kind = abortKind(signal);
    const detail = kind === 'timeout' ? (deadlineDetail(signal.reason) ?? 'the upstream time limit passed') : 'cancelled by the caller';
    return new McpClientError(kind, detail, { cause: err });
  }
  const code = codeOf(err);
  if (code === undefined || MISUSE_CODES.has(code)) throw err;
  if (TIMEOUT_CODES.has(code)) return new McpClientError('timeout', `upstream timed out (${code})`, { code, cause: err });
  // Refused, reset, DNS failure, TLS failure, socket closed: the server could not be talked to.
  return new McpClientError('unreachable', `upstream unreachable (${code})`, { code, cause: err });
}
