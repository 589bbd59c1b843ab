// Browser origins (the MCP Streamable HTTP transport: servers MUST validate Origin, against DNS
// rebinding). A request carrying an Origin header is a browser's; it is served only when that
// origin is the gateway's own public origin (GATEWAY_PUBLIC_URL, or the listen address when unset:
// a page the gateway itself serves) or listed in GATEWAY_ALLOWED_ORIGINS (default: none), on every
// route, before authentication, so any other page learns nothing about tokens or routes. The own
// origin comes from configuration, never from the request's Host: a rebinding page controls the
// name it was loaded under, so its Origin always matches its Host. A request without Origin (curl,
// SDKs, agents, gatewayctl) is unaffected; see docs/mcp-gateway.md, "Browser origins".
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../shared/errors.js';
import { quoted } from '../../shared/text.js';

/**
 * `allowed` holds origins as browsers serialise them (scheme://host[:port], lower case; config.ts),
 * `own` the gateway's public origin (null before it listens); `null` never matches.
 */
export function checkOrigin(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>, own: string | null = null): void {
  const origin = headers.origin;
  if (origin === undefined) return;
  const asSent = origin.toLowerCase();
  if (asSent === own || allowed.has(asSent)) return;
  throw new GatewayError(
    'origin_not_allowed',
    `Requests from the browser origin ${quoted(origin)} are not allowed (the gateway's own origin and GATEWAY_ALLOWED_ORIGINS are).`,
  );
}

/** The origin of a public base URL as a browser sends it in Origin (default port dropped, lower case). */
export function originOf(publicUrl: string): string | null {
  try {
    return new URL(publicUrl).origin.toLowerCase();
  } catch {
    return null;
  }
}
