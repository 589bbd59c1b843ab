// Upstream sign-in per the contract: auth_method none | bearer (auth_config.token) | header
// (auth_config.name, .value). Anything that cannot be attached fails here, before a packet is
// sent. Only the server's own configured secret is ever sent; nothing of the caller's request is.
import { McpClientError } from './errors.js';

export interface UpstreamAuth {
  /** The server's auth_method, as stored (any value; unknown ones are refused here). */
  readonly method: string;
  /** The server's auth_config, decrypted. */
  readonly config?: Readonly<Record<string, unknown>> | null;
}

export const NO_AUTH: UpstreamAuth = Object.freeze({ method: 'none' });

// RFC 9110 token (a field name) and field value: visible ASCII, inner spaces and tabs.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\x21-\x7e]([\x20-\x7e\t]*[\x21-\x7e])?$/;

// Headers the transport owns: a configured header may not replace them.
const RESERVED = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'accept',
  'accept-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'mcp-method',
  'mcp-name',
  'last-event-id',
]);

function secret(config: UpstreamAuth['config'], key: string): string | undefined {
  const value = config?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function unsupported(detail: string): McpClientError {
  return new McpClientError('auth_unsupported', detail);
}

/** The headers that sign in to the upstream server; throws auth_unsupported or auth_token_missing. */
export function authHeaders(auth: UpstreamAuth): Record<string, string> {
  switch (auth.method) {
    case 'none':
      return {};
    case 'bearer': {
      const token = secret(auth.config, 'token');
      if (token === undefined) throw new McpClientError('auth_token_missing', 'auth_method bearer needs auth_config.token');
      if (!FIELD_VALUE.test(token) || /\s/.test(token)) throw unsupported('auth_config.token is not a valid bearer token');
      return { authorization: `Bearer ${token}` };
    }
    case 'header': {
      const name = secret(auth.config, 'name');
      if (name === undefined || !TOKEN.test(name)) throw unsupported('auth_method header needs auth_config.name, a valid header name');
      const lower = name.toLowerCase();
      if (RESERVED.has(lower) || lower.startsWith('mcp-param-'))
        throw unsupported(`header ${name} is set by the transport and cannot carry credentials`);
      const value = secret(auth.config, 'value');
      if (value === undefined) throw new McpClientError('auth_token_missing', 'auth_method header needs auth_config.value');
      if (!FIELD_VALUE.test(value)) throw unsupported('auth_config.value is not a valid header value');
      return { [lower]: value };
    }
    default:
      throw unsupported(`auth_method ${JSON.stringify(auth.method)} cannot be attached`);
  }
}
