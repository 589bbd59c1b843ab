// The gateway answering a server's request in the client's place: when the results inspection
// (results.ts) refuses a server's sampling or elicitation request, the client never sees it, so the
// gateway sends the server its error on the client's session, through the SSRF-guarded dispatcher.
import { discard } from '../client/bounded-read.js';
import type { UpstreamLimits } from './relay-request.js';

/**
 * Sends one message of the client's to the upstream on its session (the gateway answering a
 * server's request in the client's place), with the relayed request's headers; its answer is
 * discarded and a failure only logged by the caller: the client's stream goes on either way.
 */
export async function answerUpstream(limits: UpstreamLimits, url: URL, headers: Record<string, string>, message: unknown): Promise<void> {
  // The session, protocol version and sign-in, not the routing headers of the request relayed (a response names no method).
  const kept = Object.fromEntries(
    Object.entries(headers).filter(([name]) => name !== 'mcp-method' && name !== 'mcp-name' && !name.startsWith('mcp-param-')),
  );
  const up = await limits.dispatcher.request({
    origin: url.origin,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: { ...kept, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify(message),
    headersTimeout: limits.timeoutMs,
    bodyTimeout: limits.timeoutMs,
    signal: AbortSignal.timeout(limits.timeoutMs),
  });
  await discard(up.body);
}
