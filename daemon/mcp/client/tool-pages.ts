// Every tool of a server, page by page (tools/list with nextCursor), whatever the transport: the
// names must be unique, a cursor must not repeat, and at most `maxPages` pages are read.
import { McpClientError } from './errors.js';
import { parseTool, type McpTool } from './tool-surface.js';

/** One page: the tools/list result for `cursor` (undefined: the first page). */
export type ToolsPage = (cursor: string | undefined) => Promise<unknown>;

export async function allTools(page: ToolsPage, maxPages: number): Promise<McpTool[]> {
  const tools: McpTool[] = [];
  const names = new Set<string>();
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let n = 0; n < maxPages; n += 1) {
    const result = await page(cursor);
    const listed = typeof result === 'object' && result !== null ? (result as Record<string, unknown>) : {};
    if (!Array.isArray(listed.tools)) throw new McpClientError('invalid_response', 'tools/list: the result has no tools array');
    for (const raw of listed.tools) {
      const tool = parseTool(raw, tools.length);
      if (names.has(tool.name))
        throw new McpClientError('invalid_response', `tools/list: tool ${JSON.stringify(tool.name)} is listed twice`);
      names.add(tool.name);
      tools.push(tool);
    }
    const next: unknown = listed.nextCursor;
    if (next === undefined || next === null || next === '') return tools;
    if (typeof next !== 'string') throw new McpClientError('invalid_response', 'tools/list: nextCursor is not a string');
    if (cursors.has(next)) throw new McpClientError('invalid_response', 'tools/list: the server repeated a cursor');
    cursors.add(next);
    cursor = next;
  }
  throw new McpClientError('too_large', `tools/list: more than ${maxPages} pages`);
}
