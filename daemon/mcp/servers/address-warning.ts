// What registering an MCP server says about its address ahead of the scan: a loopback or private
// address outside GATEWAY_UPSTREAM_ALLOW is refused at the scan and on every call (the address
// guard, client/ssrf-guard.ts), so registration warns at once and says how to allow it. It only
// warns: the server is registered all the same (the allow-list may change before the scan), and a
// host that does not resolve now, or resolves slowly, gets no warning (the scan will say).
import { assertUpstreamAllowed, parseAllowList, systemResolve, UpstreamForbiddenError, type Resolve } from '../client/ssrf-guard.js';

/** How long registration waits for the resolver before it gives up warning. */
const RESOLVE_BUDGET_MS = 2_000;

export interface AddressWarning {
  readonly code: 'upstream_url_forbidden';
  readonly message: string;
}

export async function addressWarning(
  serverUrl: string,
  allow: readonly string[],
  resolve: Resolve = systemResolve,
): Promise<AddressWarning | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((done) => {
    timer = setTimeout(() => done('late'), RESOLVE_BUDGET_MS);
  });
  try {
    await Promise.race([assertUpstreamAllowed(serverUrl, parseAllowList(allow), resolve), late]);
    return null;
  } catch (err) {
    if (!(err instanceof UpstreamForbiddenError) || err.reason !== 'address' || err.address === undefined) return null;
    const cidr = err.address.includes(':') ? `${err.address}/128` : `${err.address}/32`;
    return {
      code: 'upstream_url_forbidden',
      message:
        `The server address resolves to ${err.address} (${err.range ?? 'internal'}), outside GATEWAY_UPSTREAM_ALLOW: `
        + `its scan and every call through the proxy will be refused. To allow it, start gatewayd with GATEWAY_UPSTREAM_ALLOW=${cidr} `
        + '(comma-separated CIDRs; see docs/configuration.md).',
    };
  } finally {
    clearTimeout(timer);
  }
}
