// Browser origins (the MCP Streamable HTTP transport: servers MUST validate Origin, against DNS
// rebinding). A request carrying an Origin header is a browser's; it is served only when that
// origin is listed in GATEWAY_ALLOWED_ORIGINS (default: none), on every route, before
// authentication, so an unlisted page learns nothing about tokens or routes. A request without
// Origin (curl, SDKs, agents, gatewayctl) is unaffected. Host is not checked: every route but
// /healthz and /metrics needs a bearer token, which a rebinding page does not have, and a browser
// sends Origin on every request a rebinding attack needs (POST); see docs/mcp-gateway.md, "Browser origins".
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../shared/errors.js';

/** `allowed` holds origins as browsers serialise them (scheme://host[:port], lower case; config.ts); `null` never matches. */
export function checkOrigin(headers: IncomingHttpHeaders, allowed: ReadonlySet<string>): void {
  const origin = headers.origin;
  if (origin === undefined) return;
  if (!allowed.has(origin.toLowerCase())) {
    throw new GatewayError(
      'origin_not_allowed',
      `Requests from the browser origin ${JSON.stringify(origin.slice(0, 200))} are not allowed (GATEWAY_ALLOWED_ORIGINS).`,
    );
  }
}
