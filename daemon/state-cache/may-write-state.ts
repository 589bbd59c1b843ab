// Which requests may change the state the cache holds: the credential check then drops its project's
// entries from this daemon's cache before the request writes, and the server its rate-limit count.

/**
 * Requests that may write state the cache holds: every method but GET, HEAD and OPTIONS, except on
 * the routes that declare they write only traces (the governance routes: verify, the MCP proxy,
 * webhook ingest; the proxy's session bindings are reported by sessions.ts). Flagging a route
 * that does write would only cost a daemon its own read-your-writes; leaving a hot route
 * unflagged only costs it cache hits.
 */
const READ_ONLY_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function mayWriteState(method: string | undefined, route: { readonly writesOnlyTraces?: boolean }): boolean {
  if (method === undefined || READ_ONLY_METHODS.has(method)) return false;
  return route.writesOnlyTraces !== true;
}
