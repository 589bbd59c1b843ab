// MCP client over Streamable HTTP, speaking both protocol eras in use: the 2025 era (initialize,
// notifications/initialized, Mcp-Session-Id, MCP-Protocol-Version; answers 2025-11-25, -06-18 and
// -03-26 accepted) and the stateless 2026-07-28 revision (server/discover, the per-request _meta
// envelope, Mcp-Method / Mcp-Name headers). How the era is picked: handshake.ts. scanServer reads a
// server's tools; McpSession is the lower level the proxy reuses for forwarding.
import type { UpstreamAuth } from './upstream-auth.js';
import { UpstreamDeadline } from './deadline.js';
import { handshake, type Handshake } from './handshake.js';
import type { McpTool } from './tool-surface.js';
import { allTools } from './tool-pages.js';
import {
  MODERN_PROTOCOL_VERSION,
  endSession,
  exchange,
  legacyHeaders,
  makeLink,
  modernHeaders,
  resultOf,
  withEnvelope,
  type Era,
  type Link,
  type McpClientOptions,
  type ServerInfo,
} from './protocol.js';

export { toolFingerprint, toolSurface, TOOL_SURFACE_FIELDS, type McpTool } from './tool-surface.js';
export { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION, type Era, type McpClientOptions, type ServerInfo } from './protocol.js';
export type { UpstreamAuth } from './upstream-auth.js';

export interface ScanResult {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly serverInfo: ServerInfo | null;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly tools: McpTool[];
}

/** A conversation with one MCP server in the era it speaks. Close it: a 2025 session is ended. */
export class McpSession {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly serverInfo: ServerInfo | null;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly sessionId: string | undefined;
  private readonly link: Link;
  private closed = false;

  private constructor(link: Link, done: Handshake) {
    this.link = link;
    this.era = done.era;
    this.protocolVersion = done.protocolVersion;
    this.serverInfo = done.serverInfo;
    this.capabilities = done.capabilities;
    this.sessionId = done.sessionId;
  }

  /** Detects the era (handshake.ts) and completes its handshake. */
  static async open(url: string, auth: UpstreamAuth, options: McpClientOptions): Promise<McpSession> {
    const link = makeLink(url, auth, options);
    return new McpSession(link, await handshake(link, options.era ?? 'auto'));
  }

  /** Sends one request in the session's era and returns its result, or throws McpClientError. */
  async request(
    method: string,
    params: Record<string, unknown> = {},
    options: { signal?: AbortSignal } = {},
  ): Promise<Record<string, unknown>> {
    if (this.closed) throw new Error('the MCP session is closed');
    const id = this.link.nextId++;
    const modern = this.era === MODERN_PROTOCOL_VERSION;
    const body = modern ? withEnvelope(params, this.link) : params;
    const headers = modern ? modernHeaders(method, body) : legacyHeaders(this.protocolVersion, this.sessionId);
    return resultOf(await exchange(this.link, headers, { jsonrpc: '2.0', id, method, params: body }, id, options.signal), method);
  }

  /** Every tool, following nextCursor for at most maxPages pages. Names must be unique. */
  async listTools(): Promise<McpTool[]> {
    return allTools((cursor) => this.request('tools/list', cursor === undefined ? {} : { cursor }), this.link.maxPages);
  }

  /** Ends a 2025 session with DELETE, best effort (the server also expires it), bounded by `signal` too. Idempotent. */
  async close(signal?: AbortSignal): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.sessionId !== undefined) await endSession(this.link, this.protocolVersion, this.sessionId, signal);
  }
}

/**
 * Reads a server's tools: detect the era, handshake, list every page, end the session, all within
 * one total deadline (totalTimeoutMs, default 4 × timeoutMs), the goodbye included.
 */
export async function scanServer(url: string, auth: UpstreamAuth, options: McpClientOptions): Promise<ScanResult> {
  const totalMs = options.totalTimeoutMs ?? 4 * options.timeoutMs;
  const deadline = new UpstreamDeadline(
    { idleMs: 0, totalMs, totalOf: 'the scan', totalSetting: 'GATEWAY_SCAN_TIMEOUT_SECONDS' },
    options.signal,
  );
  try {
    const session = await McpSession.open(url, auth, { ...options, signal: deadline.signal });
    try {
      const tools = await session.listTools();
      return {
        era: session.era,
        protocolVersion: session.protocolVersion,
        serverInfo: session.serverInfo,
        capabilities: session.capabilities,
        tools,
      };
    } finally {
      await session.close(deadline.signal);
    }
  } finally {
    deadline.dispose();
  }
}
