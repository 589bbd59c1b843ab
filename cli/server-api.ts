// What the servers commands share: the records of /api/v1/mcp/servers as the CLI reads them, the
// server-id argument and the route of one server. Fields the CLI does not name pass through.
import type { ScanReply } from '../shared/mcp-schemas.js';
import type { ToolView } from '../shared/tool-view.js';
import { Args } from '@oclif/core';

/** One registered MCP server; the daemon never returns its auth_config. */
export interface McpServer {
  id: string;
  name: string;
  server_url: string;
  /** Where MCP hosts reach it: the gateway's proxy route (gatewayctl connect configures a host with it). */
  proxy_url: string;
  status: string;
  auth_method: string;
  scan_state: string;
  scan_reason: string | null;
  tool_count: number;
  tools_unreleased: number;
  /** Registration only: what the daemon foresees going wrong (an address outside GATEWAY_UPSTREAM_ALLOW). */
  warnings?: { code: string; message: string }[];
  [field: string]: unknown;
}

/** A tool as GET .../tools lists it (shared/tool-view.ts: the console reads the same shape). */
export type McpTool = ToolView;

export type { ScanReply };

export const serverIdArg = {
  id: Args.string({ description: 'ID or name of the MCP server (see servers list).', required: true }),
};

export function serverRoute(id: string, action?: string): string {
  return `/api/v1/mcp/servers/${encodeURIComponent(id)}${action ? `/${action}` : ''}`;
}
