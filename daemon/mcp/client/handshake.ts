// Which protocol era a server speaks, and the handshake of that era.
//
// Modern first, as the 2026-07-28 Streamable HTTP "Backward Compatibility" section has it: POST
// server/discover with the per-request _meta envelope and the modern headers.
// - A DiscoverResult listing 2026-07-28: modern. No session, no handshake.
// - A recognised modern error (-32020 HeaderMismatch, -32021 missing capability, -32022 unsupported
//   version): a modern server, so no fallback, except when -32022 lists only 2025-era versions
//   this client speaks.
// - Any other 4xx (a 2025 server answers 400 "not initialized" / "unsupported protocol version"),
//   an in-band JSON-RPC error (-32601: no such method), a 202, or a result without a usable
//   supportedVersions: the 2025 era, so initialize and notifications/initialized follow.
// - 401/403, 3xx (redirects are never followed), 5xx and transport failures: that failure. A modern
//   server behind a failing gateway is not a 2025 server.
// The probe carries no session id and is not initialize, so a 2025 server creates no session for
// it. Trying initialize first would never find out that a dual-era server speaks the modern
// revision, and an `initialize` answer echoing 2026-07-28 (a confused 2025 server) is refused.
// A cached verdict (`era` option) skips the probe.
import { McpClientError, type JsonRpcErrorObject } from './errors.js';
import {
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
  endSession,
  exchange,
  isObject,
  legacyHeaders,
  modernHeaders,
  readServerInfo,
  refusal,
  resultOf,
  rpcOf,
  withEnvelope,
  type Era,
  type Link,
  type ServerInfo,
} from './protocol.js';

const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const MODERN_ERROR_CODES = new Set([-32020, -32021, -32022]);
const UNSUPPORTED_VERSION = -32022;
const SESSION_ID = /^[\x21-\x7e]{1,1024}$/;

export interface Handshake {
  readonly era: Era;
  readonly protocolVersion: string;
  readonly serverInfo: ServerInfo | null;
  readonly capabilities: Readonly<Record<string, unknown>>;
  readonly sessionId: string | undefined;
}

type Probe = { readonly modern: true; readonly result: Record<string, unknown> } | { readonly modern: false };

function judgeModernError(error: JsonRpcErrorObject, status: number): Probe {
  if (!MODERN_ERROR_CODES.has(error.code)) return { modern: false };
  const data = error.data;
  const supported = error.code === UNSUPPORTED_VERSION && isObject(data) && Array.isArray(data.supported) ? data.supported : [];
  if (!supported.includes(MODERN_PROTOCOL_VERSION) && supported.some((v) => LEGACY_PROTOCOL_VERSIONS.includes(v as string)))
    return { modern: false };
  throw new McpClientError('rpc_error', `server/discover: a modern MCP server refused the probe (JSON-RPC ${error.code})`, {
    status,
    rpc: error,
  });
}

async function discover(link: Link): Promise<Probe> {
  const id = link.nextId++;
  const params = withEnvelope({}, link);
  const out = await exchange(link, modernHeaders('server/discover', params), { jsonrpc: '2.0', id, method: 'server/discover', params }, id);
  if (out.kind === 'accepted') return { modern: false };
  if (out.kind === 'refused') {
    if (out.status < 400 || out.status > 499) throw refusal(out, 'server/discover');
    const rpc = rpcOf(out);
    return rpc ? judgeModernError(rpc, out.status) : { modern: false };
  }
  if ('error' in out.response) return judgeModernError(out.response.error, out.status);
  const versions: unknown = out.response.result.supportedVersions;
  if (!Array.isArray(versions) || !versions.every((v) => typeof v === 'string')) return { modern: false };
  if (versions.includes(MODERN_PROTOCOL_VERSION)) return { modern: true, result: out.response.result };
  if (versions.some((v) => LEGACY_PROTOCOL_VERSIONS.includes(v))) return { modern: false };
  throw new McpClientError('rpc_error', `server/discover: no protocol version in common (server: ${versions.join(', ')})`, {
    status: out.status,
  });
}

function modernHandshake(result: Record<string, unknown>): Handshake {
  const meta = isObject(result._meta) ? result._meta : {};
  return {
    era: MODERN_PROTOCOL_VERSION,
    protocolVersion: MODERN_PROTOCOL_VERSION,
    serverInfo: readServerInfo(meta[META_SERVER_INFO]),
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    sessionId: undefined,
  };
}

/** initialize, then notifications/initialized; a session made on the way is ended on failure. */
async function initialize(link: Link): Promise<Handshake> {
  const id = link.nextId++;
  const params = { protocolVersion: LEGACY_PROTOCOL_VERSIONS[0], capabilities: link.clientCapabilities, clientInfo: link.clientInfo };
  const out = await exchange(link, {}, { jsonrpc: '2.0', id, method: 'initialize', params }, id);
  const result = resultOf(out, 'initialize');
  const sessionId = out.headers['mcp-session-id'];
  if (sessionId !== undefined && (typeof sessionId !== 'string' || !SESSION_ID.test(sessionId))) {
    throw new McpClientError('invalid_response', 'initialize: the Mcp-Session-Id header is malformed');
  }
  const version = result.protocolVersion;
  try {
    if (typeof version !== 'string' || !LEGACY_PROTOCOL_VERSIONS.includes(version)) {
      throw new McpClientError(
        'invalid_response',
        `initialize: the server chose protocol version ${JSON.stringify(version)}, which this client does not speak`,
      );
    }
    const note = await exchange(
      link,
      legacyHeaders(version, sessionId),
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      undefined,
    );
    if (note.kind === 'refused') throw refusal(note, 'notifications/initialized');
  } catch (err) {
    if (sessionId !== undefined) await endSession(link, typeof version === 'string' ? version : LEGACY_PROTOCOL_VERSIONS[0], sessionId);
    throw err;
  }
  return {
    era: '2025-11-25',
    protocolVersion: version,
    serverInfo: readServerInfo(result.serverInfo),
    capabilities: isObject(result.capabilities) ? result.capabilities : {},
    sessionId,
  };
}

/** Detects the era (unless pinned) and completes its handshake. */
export async function handshake(link: Link, era: 'auto' | Era): Promise<Handshake> {
  if (era !== '2025-11-25') {
    const probe = await discover(link);
    if (probe.modern) return modernHandshake(probe.result);
    if (era === MODERN_PROTOCOL_VERSION)
      throw new McpClientError('invalid_response', `the server does not speak protocol ${MODERN_PROTOCOL_VERSION}`);
  }
  return initialize(link);
}
