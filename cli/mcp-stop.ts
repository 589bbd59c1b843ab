// The targeted MCP emergency stop (POST /api/v1/mcp/emergency-stop, Admin), shared by stop server
// and stop agent: the request, and the reply in words.
import type { McpStopReply } from '../shared/mcp-schemas.js';
import type { ApiClient } from './api-client.js';

export function mcpStop(api: ApiClient, scope: 'server' | 'agent', targetId: string, reason: string | undefined): Promise<McpStopReply> {
  return api.request<McpStopReply>('POST', '/api/v1/mcp/emergency-stop', {
    scope,
    target_id: targetId,
    ...(reason === undefined ? {} : { reason }),
  });
}

const approvals = (n: number): string => `${n} approval request${n === 1 ? '' : 's'} ended (open or approved but unused, now CANCELLED)`;

export function describeMcpStop(reply: McpStopReply): string {
  if (reply.scope === 'agent') return `MCP emergency stop of agent ${reply.target_id}: ${approvals(reply.approvals_ended)}.`;
  const server =
    reply.previous_status === reply.server_status
      ? `server unchanged (${reply.server_status ?? '?'}; only an ACTIVE server is blocked)`
      : `server ${reply.previous_status ?? '?'} -> ${reply.server_status ?? '?'}`;
  return `MCP emergency stop of server ${reply.target_id}: ${server}; ${approvals(reply.approvals_ended)}.`;
}
