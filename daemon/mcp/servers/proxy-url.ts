// Where MCP hosts reach a registered server: the gateway's proxy route under its public base URL
// (GATEWAY_PUBLIC_URL, or where the daemon listens). Every server record the API returns carries it.

/** The proxy route of one server, relative to the gateway's base URL. */
export function proxyPath(serverId: string): string {
  return `/api/v1/mcp/proxy/${encodeURIComponent(serverId)}`;
}

/** The record with `proxy_url` set, placed right after `server_url` (the upstream it stands for). */
export function withProxyUrl<T extends { id: string }>(publicUrl: string, item: T): T & { proxy_url: string } {
  const proxyUrl = publicUrl + proxyPath(item.id);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(item)) {
    out[key] = value;
    if (key === 'server_url') out.proxy_url = proxyUrl;
  }
  out.proxy_url ??= proxyUrl;
  return out as T & { proxy_url: string };
}
