// HTTP headers on the proxy path. The 2026-07-28 transport repeats the method (Mcp-Method) and the
// target name (Mcp-Name) in headers so routing layers need not read the body; the proxy checks they
// agree with the body before any policy decision (a mismatch is 400, JSON-RPC -32020), so a router
// and the policy can never see two different calls; Mcp-Param-* headers likewise (param-headers.ts). What goes upstream is an allow-list: never the
// caller's Authorization (the MCP specification forbids token passthrough), cookies or gateway headers.
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError } from '../../../shared/errors.js';
import { quoted } from '../../../shared/text.js';
import { MODERN_PROTOCOL_VERSION } from '../client/protocol.js';
import type { RpcMessage } from './rpc.js';

// The params field Mcp-Name mirrors, per method (2026-07-28, Standard Request Headers).
const NAME_SOURCE: Readonly<Record<string, string>> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };
const BASE64_SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/** Request headers passed upstream as they came. The server's sign-in is added by the caller. */
const FORWARDED_REQUEST = ['accept', 'mcp-protocol-version', 'mcp-session-id', 'mcp-method', 'mcp-name', 'last-event-id'];
/** Response headers passed back to the client. */
export const FORWARDED_RESPONSE = ['content-type', 'mcp-session-id', 'mcp-protocol-version', 'cache-control'];

export function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** A header value as the 2026-07-28 transport encodes it: plain, or =?base64?…?= around UTF-8. */
export function decodeHeaderValue(value: string): string {
  const m = BASE64_SENTINEL.exec(value);
  return m ? Buffer.from(m[1]!, 'base64').toString('utf8') : value;
}

/** Null when Mcp-Method / Mcp-Name agree with the body (or are rightly absent); else what disagrees. */
export function routingMismatch(headers: IncomingHttpHeaders, msg: RpcMessage): string | null {
  if (msg.kind === 'response') return null;
  // Mcp-Param-* mirrors a tools/call argument (param-headers.ts checks it against the body); elsewhere it names nothing.
  const param = Object.keys(headers).find((name) => name.startsWith('mcp-param-'));
  if (param !== undefined && msg.method !== 'tools/call')
    return `Mcp-Param-${param.slice('mcp-param-'.length)} header sent for method ${quoted(msg.method)}, which declares none`;
  const modern = header(headers, 'mcp-protocol-version') === MODERN_PROTOCOL_VERSION;
  const method = header(headers, 'mcp-method');
  if (method === undefined && modern) return 'Mcp-Method header missing';
  if (method !== undefined && method !== msg.method)
    return `Mcp-Method header ${quoted(method)} does not match the body's method ${quoted(msg.method)}`;
  const field = Object.hasOwn(NAME_SOURCE, msg.method) ? NAME_SOURCE[msg.method]! : null;
  const name = header(headers, 'mcp-name');
  if (field === null) return name === undefined ? null : `Mcp-Name header sent for method ${quoted(msg.method)}, which names nothing`;
  const source = msg.params?.[field];
  if (name === undefined) return modern ? 'Mcp-Name header missing' : null;
  if (typeof source !== 'string' || decodeHeaderValue(name) !== source) return `Mcp-Name header does not match params.${field}`;
  return null;
}

/**
 * The headers an upstream request carries: the allow-listed ones of the caller, then the sign-in.
 * A POST always accepts both answer forms (the proxy relays either), whatever the caller's Accept
 * said; a GET asks for the event stream.
 */
export function upstreamHeaders(
  incoming: IncomingHttpHeaders,
  signIn: Readonly<Record<string, string>>,
  method: 'POST' | 'GET' | 'DELETE',
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(incoming)) {
    if (raw === undefined) continue;
    if (FORWARDED_REQUEST.includes(name) || name.startsWith('mcp-param-')) out[name] = Array.isArray(raw) ? raw.join(', ') : raw;
  }
  if (method === 'POST') {
    out.accept = 'application/json, text/event-stream';
    out['content-type'] = 'application/json';
  } else if (method === 'GET') {
    out.accept = 'text/event-stream';
  }
  return { ...out, ...signIn };
}

const ENVIRONMENT = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** The call's environment (X-Gateway-Environment; `prod` when absent); a malformed one is 400. */
export function environmentOf(headers: IncomingHttpHeaders): string {
  const raw = header(headers, 'x-gateway-environment');
  if (raw === undefined || raw === '') return 'prod';
  if (!ENVIRONMENT.test(raw))
    throw new GatewayError('validation_error', 'Invalid request: X-Gateway-Environment: letters, digits, ".", "_" and "-", at most 64');
  return raw;
}

/** The caller speaks MCP itself: its session or protocol headers are relayed, and initialize always is. */
export function ownSession(headers: IncomingHttpHeaders, msg: RpcMessage): boolean {
  return (
    msg.kind !== 'request'
    || msg.method === 'initialize'
    || header(headers, 'mcp-session-id') !== undefined
    || header(headers, 'mcp-protocol-version') !== undefined
  );
}
