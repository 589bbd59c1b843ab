// The stdio server of the proxy benchmark's stdio line (proxy-stdio.ts): @modelcontextprotocol/sdk
// 1.x McpServer over StdioServerTransport with the same one cheap tool as proxy-upstream.ts, `echo`.
// Run by the SDK client directly and, in its sandbox, by the gateway: `node proxy-stdio-server.js`.
import { z } from 'zod';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';

const mcp = new McpServer({ name: 'bench-stdio', version: '1.0.0' });
mcp.registerTool(
  'echo',
  { description: 'Echoes the text back.', inputSchema: { text: z.string() }, annotations: { readOnlyHint: true } },
  ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await mcp.connect(new StdioServerTransport());
