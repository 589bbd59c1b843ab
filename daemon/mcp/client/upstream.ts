// One MCP server as the gateway talks to it, whatever carries the messages: a request gets its
// answer or a JSON-RPC error naming why there is none, by a deadline. The stdio servers
// (mcp/stdio/stdio-upstream.ts) are one; the forward path is to talk to HTTP servers through it
// too. listTools reads a server's tools over any of them, as the scan needs.
import { McpClientError, type McpFailureKind } from './errors.js';
import type { Era, ServerInfo } from './protocol.js';
import type { McpTool } from './tool-surface.js';
import { allTools } from './tool-pages.js';

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

export type RpcAnswer = { readonly result: unknown } | { readonly error: RpcError };

export interface Upstream {
  /** The server's initialize result, the handshake made when it was not yet. */
  initialized(deadlineMs: number): Promise<Record<string, unknown>>;
  request(method: string, params: unknown, deadlineMs: number): Promise<RpcAnswer>;
}

export interface ListedTools {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly serverInfo: ServerInfo | null;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly tools: McpTool[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Every tool, following nextCursor for at most `maxPages` pages, all within `totalMs`. An error
 * answer throws McpClientError of the kind `failureOf` gives it (the carrier knows which codes are its own).
 */
export async function listTools(
  upstream: Upstream,
  options: { totalMs: number; maxPages?: number; failureOf(error: RpcError): McpFailureKind },
): Promise<ListedTools> {
  const end = Date.now() + options.totalMs;
  const left = () => Math.max(1, end - Date.now());
  let init: Record<string, unknown>;
  try {
    init = await upstream.initialized(left());
  } catch (err) {
    throw new McpClientError('unreachable', `initialize: ${(err as Error).message}`);
  }
  const maxPages = options.maxPages ?? 100;
  const tools = await allTools(async (cursor) => {
    const answer = await upstream.request('tools/list', cursor === undefined ? {} : { cursor }, left());
    if ('error' in answer)
      throw new McpClientError(options.failureOf(answer.error), `tools/list: ${answer.error.message}`, { rpc: answer.error });
    return answer.result;
  }, maxPages);
  return describe(init, tools);
}

function describe(init: Record<string, unknown>, tools: McpTool[]): ListedTools {
  const info = isObject(init.serverInfo) && typeof init.serverInfo.name === 'string' ? (init.serverInfo as unknown as ServerInfo) : null;
  return {
    era: '2025-11-25',
    protocolVersion: typeof init.protocolVersion === 'string' ? init.protocolVersion : '2025-11-25',
    serverInfo: info ? { name: info.name, ...(typeof info.version === 'string' ? { version: info.version } : {}) } : null,
    capabilities: isObject(init.capabilities) ? init.capabilities : {},
    tools,
  };
}
