// The wire conventions both eras share: the link to one MCP endpoint (URL, sign-in and limits, all
// checked before a packet leaves), one exchange under the time limits, how an answer becomes a
// result or a typed failure, and the per-era headers and 2026-07-28 _meta envelope.
import type { Dispatcher } from 'undici';
import { authHeaders, type UpstreamAuth } from './upstream-auth.js';
import { McpClientError, type JsonRpcErrorObject } from './errors.js';
import { deleteSession, postMessage, type ExchangeLimits, type PostOutcome, type RpcId } from './http-exchange.js';
import { isUpstreamDispatcher, parseUpstreamUrl, UpstreamForbiddenError } from './ssrf-guard.js';

export const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** 2025-era versions this client speaks, newest (the one it asks for) first. */
export const LEGACY_PROTOCOL_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
export type Era = '2025-11-25' | '2026-07-28';

const META_VERSION = 'io.modelcontextprotocol/protocolVersion';
const META_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
// Methods whose params field the Mcp-Name header mirrors (2026-07-28, Standard Request Headers).
const MCP_NAME_SOURCE: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
const PLAIN_HEADER_VALUE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;
/**
 * What a 2025-era `initialize` declares unless told otherwise. Servers may offer some tools only to
 * clients that can answer sampling, elicitation or roots requests (server-everything registers its
 * trigger-sampling-request after initialize that way); a scan that declared nothing would never
 * see them, and an unseen tool can never be admitted. The scan's own requests make no server ask
 * back; one that asks anyway (server-everything requests roots/list after initialize) gets no
 * answer: the scan opens no GET stream and ends its session right after tools/list.
 */
export const SCAN_CLIENT_CAPABILITIES: Readonly<Record<string, unknown>> = { sampling: {}, elicitation: { form: {}, url: {} }, roots: {} };

export interface McpClientOptions {
  /** From createUpstreamDispatcher: the only dispatcher the client sends through. */
  readonly dispatcher: Dispatcher;
  /** Connect + response headers (GATEWAY_UPSTREAM_TIMEOUT_SECONDS); see deadline.ts headersWaitMs. */
  readonly timeoutMs: number;
  /** Longest wait between complete SSE events or comments (GATEWAY_UPSTREAM_IDLE_TIMEOUT_SECONDS). Default timeoutMs. */
  readonly idleTimeoutMs?: number;
  /** One exchange (GATEWAY_UPSTREAM_CALL_TIMEOUT_SECONDS). Default 4 × timeoutMs. */
  readonly callTimeoutMs?: number;
  /** One JSON answer or one SSE event (GATEWAY_UPSTREAM_RESPONSE_LIMIT_BYTES). */
  readonly responseLimitBytes: number;
  /** scanServer: the whole scan, goodbye included (GATEWAY_SCAN_TIMEOUT_SECONDS). Default 4 × timeoutMs. */
  readonly totalTimeoutMs?: number;
  /** tools/list pages followed at most (default 100). */
  readonly maxPages?: number;
  /** A cached era verdict; `auto` (default) probes. */
  readonly era?: 'auto' | Era;
  /** The caller's cancellation (for the proxy: the downstream client went away). */
  readonly signal?: AbortSignal;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** The capabilities a 2025-era initialize declares (default SCAN_CLIENT_CAPABILITIES). */
  readonly clientCapabilities?: Readonly<Record<string, unknown>>;
}

export interface ServerInfo {
  readonly name: string;
  readonly version?: string;
  readonly title?: string;
}

export interface Link {
  readonly url: URL;
  readonly auth: Readonly<Record<string, string>>;
  readonly limits: ExchangeLimits;
  readonly maxPages: number;
  readonly signal: AbortSignal | undefined;
  readonly clientInfo: { readonly name: string; readonly version: string };
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  nextId: number;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Everything checked before a packet leaves: URL syntax, sign-in, dispatcher. */
export function makeLink(rawUrl: string, auth: UpstreamAuth, options: McpClientOptions): Link {
  if (!isUpstreamDispatcher(options.dispatcher)) throw new TypeError('the MCP client only sends through createUpstreamDispatcher()');
  let url: URL;
  try {
    url = parseUpstreamUrl(rawUrl);
  } catch (err) {
    if (err instanceof UpstreamForbiddenError) throw new McpClientError('forbidden_address', err.message, { code: err.code, cause: err });
    throw err;
  }
  return {
    url,
    auth: authHeaders(auth),
    limits: {
      dispatcher: options.dispatcher,
      timeoutMs: options.timeoutMs,
      idleTimeoutMs: options.idleTimeoutMs ?? options.timeoutMs,
      callTimeoutMs: options.callTimeoutMs ?? 4 * options.timeoutMs,
      responseLimitBytes: options.responseLimitBytes,
    },
    maxPages: options.maxPages ?? 100,
    signal: options.signal,
    clientInfo: options.clientInfo ?? { name: 'governance-gateway', version: '0.1.0' },
    clientCapabilities: options.clientCapabilities ?? SCAN_CLIENT_CAPABILITIES,
    nextId: 1,
  };
}

/** One POST, bounded by the exchange's time limits (http-exchange.ts), the link's signal and the caller's. */
export function exchange(
  link: Link,
  headers: Record<string, string>,
  message: object,
  id: RpcId | undefined,
  signal?: AbortSignal,
): Promise<PostOutcome> {
  const signals = [link.signal, signal].filter((s): s is AbortSignal => s !== undefined);
  return postMessage(link.limits, link.url, { ...link.auth, ...headers }, message, id, AbortSignal.any(signals));
}

export function rpcOf(out: PostOutcome): JsonRpcErrorObject | undefined {
  return out.kind !== 'accepted' && out.response && 'error' in out.response ? out.response.error : undefined;
}

export function refusal(out: PostOutcome & { kind: 'refused' }, method: string): McpClientError {
  return new McpClientError('http_error', `${method}: the upstream server answered HTTP ${out.status}`, {
    status: out.status,
    rpc: rpcOf(out),
  });
}

/** The result of a request, or the typed failure its answer amounts to. */
export function resultOf(out: PostOutcome, method: string): Record<string, unknown> {
  if (out.kind === 'refused') throw refusal(out, method);
  if (out.kind === 'accepted') {
    throw new McpClientError('invalid_response', `${method}: the upstream server accepted the request without answering it`, {
      status: out.status,
    });
  }
  if ('error' in out.response) {
    throw new McpClientError('rpc_error', `${method}: the upstream server answered JSON-RPC error ${out.response.error.code}`, {
      status: out.status,
      rpc: out.response.error,
    });
  }
  return out.response.result;
}

function headerValue(value: string): string {
  const sentinel = value.startsWith('=?base64?') && value.endsWith('?=');
  return PLAIN_HEADER_VALUE.test(value) && !sentinel ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** 2026-07-28: version and method on every request, Mcp-Name where the method has a name. */
export function modernHeaders(method: string, params: Record<string, unknown>): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': MODERN_PROTOCOL_VERSION, 'mcp-method': method };
  const source = Object.hasOwn(MCP_NAME_SOURCE, method) ? params[MCP_NAME_SOURCE[method]] : undefined;
  if (typeof source === 'string') headers['mcp-name'] = headerValue(source);
  return headers;
}

/** 2025 era, after initialize: the negotiated version and the session, if the server made one. */
export function legacyHeaders(protocolVersion: string, sessionId: string | undefined): Record<string, string> {
  return sessionId === undefined
    ? { 'mcp-protocol-version': protocolVersion }
    : { 'mcp-protocol-version': protocolVersion, 'mcp-session-id': sessionId };
}

/** params with the 2026-07-28 envelope; the caller's own capabilities and client info are kept. */
export function withEnvelope(params: Record<string, unknown>, link: Link): Record<string, unknown> {
  const meta = isObject(params._meta) ? params._meta : {};
  return {
    ...params,
    _meta: { [META_CAPABILITIES]: {}, [META_CLIENT_INFO]: link.clientInfo, ...meta, [META_VERSION]: MODERN_PROTOCOL_VERSION },
  };
}

export function readServerInfo(value: unknown): ServerInfo | null {
  if (!isObject(value) || typeof value.name !== 'string') return null;
  const { name, version, title } = value;
  return { name, ...(typeof version === 'string' ? { version } : {}), ...(typeof title === 'string' ? { title } : {}) };
}

/** DELETE of a 2025 session, best effort within timeoutMs (and `signal`): the server also expires sessions. */
export async function endSession(link: Link, protocolVersion: string, sessionId: string, signal?: AbortSignal): Promise<void> {
  const bound = AbortSignal.timeout(link.limits.timeoutMs);
  try {
    await deleteSession(
      link.limits,
      link.url,
      { ...link.auth, ...legacyHeaders(protocolVersion, sessionId) },
      signal ? AbortSignal.any([bound, signal]) : bound,
    );
  } catch {
    // Nothing to do about a failed goodbye; the outcome of the work before it stands.
  }
}
