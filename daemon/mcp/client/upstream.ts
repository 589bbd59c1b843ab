// One MCP server as the gateway talks to it, whatever carries the messages: a request gets its
// answer or a JSON-RPC error naming why there is none, by a deadline. The stdio servers
// (mcp/stdio/stdio-upstream.ts) are one; the forward path is to talk to HTTP servers through it
// too. listTools reads a server's tools over any of them, as the scan needs.
import { McpClientError, type McpFailureKind } from './errors.js';
import type { Era, ServerInfo } from './protocol.js';
import { parseTool, type McpTool } from './tool-surface.js';

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
  const tools: McpTool[] = [];
  const names = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < (options.maxPages ?? 100); page += 1) {
    const answer = await upstream.request('tools/list', cursor === undefined ? {} : { cursor }, left());
    if ('error' in answer)
      throw new McpClientError(options.failureOf(answer.error), `tools/list: ${answer.error.message}`, { rpc: answer.error });
    const result = answer.result;
    if (!isObject(result) || !Array.isArray(result.tools))
      throw new McpClientError('invalid_response', 'tools/list: the result has no tools array');
    for (const raw of result.tools) {
      const tool = parseTool(raw, tools.length);
      if (names.has(tool.name))
        throw new McpClientError('invalid_response', `tools/list: tool ${JSON.stringify(tool.name)} is listed twice`);
      names.add(tool.name);
      tools.push(tool);
    }
    const next: unknown = result.nextCursor;
    if (next === undefined || next === null || next === '') return describe(init, tools);
    if (typeof next !== 'string') throw new McpClientError('invalid_response', 'tools/list: nextCursor is not a string');
    if (cursors.has(next)) throw new McpClientError('invalid_response', 'tools/list: the server repeated a cursor');
    cursors.add(next);
    cursor = next;
  }
  throw new McpClientError('too_large', `tools/list: more than ${options.maxPages ?? 100} pages`);
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
