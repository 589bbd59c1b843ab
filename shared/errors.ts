// Every error code the gateway answers with, in one table: HTTP status, JSON-RPC code where the
// MCP proxy uses one, and the English message. Handlers throw GatewayError(code); only
// daemon/http/respond.ts turns a code into a response.

export interface ErrorSpec {
  readonly status: number;
  readonly message: string;
  readonly rpc?: number;
}

export const ERRORS = {
  validation_error: { status: 400, message: 'The request is not valid.' },
  unauthorized: { status: 401, message: 'Missing, unknown or revoked credentials.' },
  forbidden: { status: 403, message: 'This credential lacks the role this route needs.' },
  origin_not_allowed: { status: 403, message: 'Requests from this browser origin are not allowed.' },
  csrf_refused: {
    status: 403,
    message: "A console session's state-changing request needs its X-Gateway-CSRF token and the console's Origin.",
  },
  not_found: { status: 404, message: 'No such resource.' },
  method_not_allowed: { status: 405, message: 'This method is not allowed on this path.' },
  request_timeout: { status: 408, message: 'The request was not received in time.' },
  expectation_failed: { status: 417, message: 'The only expectation the gateway meets is "Expect: 100-continue".' },
  payload_too_large: { status: 413, message: 'The request body is larger than the configured limit.' },
  unsupported_media_type: { status: 415, message: 'Request bodies must be JSON (Content-Type: application/json).' },
  headers_too_large: { status: 431, message: 'The request line or headers are larger than the server accepts.' },
  malformed_request: {
    status: 400,
    message: 'The request is not well-formed HTTP (request line, headers or body framing); the connection is closed.',
  },
  rate_limited: { status: 429, message: 'The project rate limit is exceeded; retry after the time in Retry-After.' },
  internal_error: { status: 500, message: 'An unexpected error occurred; quote the request id when reporting it.' },
  upstream_refused: {
    status: 400,
    message: 'The upstream MCP server refused the request and said why in no JSON; its HTTP status is passed on.',
  },
  service_unavailable: { status: 503, message: 'A subsystem the gateway needs is unavailable; retry with backoff.' },
  event_streams_full: {
    status: 503,
    message: 'This daemon holds as many event streams as it serves; read the resource itself meanwhile and retry later.',
  },
  database_unavailable: {
    status: 503,
    message: 'The database is unreachable; only verify and the MCP proxy keep deciding meanwhile. Retry with backoff.',
  },

  project_emergency_stopped: { status: 403, message: 'The project emergency stop is active.' },
  project_emergency_stop_already_active: { status: 409, message: 'The project emergency stop is already active.' },
  project_emergency_stop_not_active: { status: 409, message: 'The project emergency stop is not active.' },

  last_admin_credential: {
    status: 409,
    message: 'This is the last active Admin user token of the project; create another before revoking it.',
  },

  reveal_requires_full_audit: { status: 409, message: 'Raw content can only be revealed while the project audit_detail_level is full.' },
  raw_not_available: {
    status: 404,
    message: 'No raw original is kept for this trace (audit level below full when it was recorded, or removed by retention).',
  },
  encryption_key_mismatch: {
    status: 503,
    message:
      'The raw original was sealed with another encryption key than this daemon holds; set the same GATEWAY_ENCRYPTION_KEY on every daemon.',
  },

  agent_transition_invalid: { status: 409, message: "This lifecycle operation is not allowed from the agent's current status." },
  agent_risk_prohibited: { status: 409, message: 'An agent classified UNACCEPTABLE (a prohibited practice) cannot be approved.' },

  mcp_scan_missing: { status: 409, message: 'The server has never been scanned; scan it first.' },
  mcp_scan_failed: { status: 409, message: 'The last scan failed; scan again.' },
  mcp_scan_not_run: { status: 409, message: 'The last scan could not run (address or sign-in); fix the configuration and scan again.' },
  mcp_scan_unreadable: { status: 409, message: 'The stored scan result does not name the tools; scan again.' },
  mcp_release_tools_required: { status: 400, message: 'A tools list is required.' },
  mcp_release_tool_missing: { status: 400, message: 'A tool of the last scan is not named.' },
  mcp_release_tool_unknown: { status: 400, message: 'A named tool is not in the decidable set.' },
  mcp_release_tool_duplicate: { status: 400, message: 'A tool is named more than once.' },
  mcp_release_rule_invalid: { status: 400, message: 'Rule must be one of ALLOW, LOG_ONLY, REQUIRE_APPROVAL, DENY.' },
  mcp_release_surface_changed: { status: 409, message: 'A tool changed since the list was read; reload and retry.' },
  mcp_release_already_released: { status: 409, message: 'The tool is admitted and unchanged; change its rule through the verdict route.' },
  mcp_release_server_not_active: { status: 409, message: 'Tools can only be admitted on an ACTIVE server.' },
  mcp_resume_takes_no_tools: { status: 400, message: 'A resume takes no tools.' },
  mcp_release_author_unresolved: {
    status: 403,
    message:
      'The Admin identity behind this credential cannot be resolved; use a user token, or act as a person the identity provider names.',
  },
  mcp_agent_rule_ineffective: { status: 400, message: 'An agent rule can only be REQUIRE_APPROVAL or DENY.' },
  mcp_template_unavailable: { status: 409, message: 'The template is locked: its sign-in method is not supported.' },
  mcp_scope_all_removed: { status: 400, message: 'Stop scope "all" was removed; use the project emergency stop.' },
  upstream_url_forbidden: {
    status: 400,
    message:
      'The server address is loopback, private, link-local or otherwise internal (checked on the resolved address) and not in GATEWAY_UPSTREAM_ALLOW.',
  },
  notification_url_forbidden: {
    status: 400,
    message:
      'The notification URL resolves to a loopback, private, link-local or otherwise internal address that is not in GATEWAY_UPSTREAM_ALLOW.',
  },
  auth_method_unsupported: {
    status: 400,
    message: "The server's auth_method cannot be attached by the gateway (supported: none, bearer, header).",
  },
  auth_token_missing: {
    status: 400,
    message: "The server's auth_method needs auth_config values that are not set (bearer: token; header: name and value).",
  },
  mcp_server_transition_invalid: { status: 409, message: "This lifecycle operation is not allowed from the server's current status." },
  mcp_server_name_conflict: { status: 409, message: 'A server with this name already exists in the project.' },
  mcp_stdio_command_not_allowed: {
    status: 400,
    message: 'This program may not run as a stdio server: GATEWAY_STDIO_COMMANDS lists the programs the operator allows.',
  },
  mcp_stdio_grant_invalid: { status: 400, message: "A granted path would reach the gateway's own files." },
  mcp_stdio_unavailable: {
    status: 409,
    message: 'Stdio servers cannot run in this daemon: bubblewrap is missing and GATEWAY_STDIO_UNSAFE_NO_SANDBOX is not set.',
  },
  approval_not_open: { status: 409, message: 'The approval request is not open.' },
  approval_decider_is_requester: {
    status: 403,
    message:
      'This approval request was opened by your own credential or user; another person must decide it (GATEWAY_APPROVAL_DECIDER_NOT_REQUESTER).',
  },
  anchoring_not_configured: {
    status: 409,
    message:
      'Ledger anchoring is not configured in this daemon (GATEWAY_ANCHOR_RPC_URL, GATEWAY_ANCHOR_CHAIN_ID, GATEWAY_ANCHOR_KEY_FILE).',
  },
  mcp_content_policy_exists: {
    status: 409,
    message: 'A content policy for this scope, direction and detector exists; change it with PATCH (gatewayctl policies content set does).',
  },
  verify_policy_name_conflict: { status: 409, message: 'A prompt policy with this name already exists in the project.' },
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERRORS, value);
}

/** The one typed error of the gateway. `message` overrides the table's text when a detail helps. */
export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message?: string, headers: Record<string, string> = {}) {
    super(message ?? ERRORS[code].message);
    this.name = 'GatewayError';
    this.code = code;
    this.status = ERRORS[code].status;
    this.headers = headers;
  }
}

/** The wire shape of every refusal. */
export interface ErrorBody {
  error: { code: string; message: string; request_id: string };
}

/**
 * The MCP proxy's JSON-RPC refusals: each reason (sent as `error.data.reason`) with its JSON-RPC
 * code, the HTTP status it travels with (200 unless stated; -32008 is 403) and its English message.
 * The codes are the specification's (MCP proxy JSON-RPC error codes); -32020 is the 2026-07-28
 * transport's HeaderMismatch.
 */
export const MCP_RPC_ERRORS = {
  AGENT_EMERGENCY_STOP: { rpc: -32003, status: 200, message: 'The agent is suspended.' },
  AGENT_PAUSED: { rpc: -32003, status: 200, message: 'The agent is paused.' },
  AGENT_PENDING_APPROVAL: { rpc: -32003, status: 200, message: 'The agent is not approved yet.' },
  AGENT_REJECTED: { rpc: -32003, status: 200, message: 'The agent was rejected.' },
  AGENT_REVOKED: { rpc: -32003, status: 200, message: 'The agent was revoked.' },
  SERVER_PENDING_APPROVAL: { rpc: -32002, status: 200, message: 'The MCP server is awaiting approval.' },
  SERVER_BLOCKED: { rpc: -32001, status: 200, message: 'The MCP server is paused (BLOCKED).' },
  APPROVED_FINGERPRINT_MISMATCH: {
    rpc: -32002,
    status: 200,
    message: 'The tool changed since it was admitted; an Admin must release it again.',
  },
  TOOL_NOT_RELEASED: { rpc: -32002, status: 200, message: 'The tool is not admitted.' },
  TOOL_POISONING_SUSPECTED: {
    rpc: -32002,
    status: 200,
    message: 'The tool is not admitted and its description changed since the last scan (poisoning suspect).',
  },
  TOOL_DENIED: { rpc: -32003, status: 200, message: 'A rule denies this tool.' },
  CONTENT_BLOCKED: { rpc: -32003, status: 200, message: 'The call carries content a content policy blocks.' },
  CONTENT_CHECK_FAILED: {
    rpc: -32003,
    status: 200,
    message: 'The content of the call could not be inspected; it is refused (fail closed).',
  },
  APPROVAL_DENIED: { rpc: -32003, status: 200, message: 'The approval request for this call was denied.' },
  PROJECT_EMERGENCY_STOP: { rpc: -32003, status: 200, message: 'The project emergency stop is active; the call was not forwarded.' },
  CREDENTIAL_REVOKED: { rpc: -32003, status: 200, message: 'The key that made the call was revoked; the call was not forwarded.' },
  TOOL_REQUIRES_APPROVAL: { rpc: -32004, status: 200, message: 'The call is held for approval.' },
  NO_TOOL_RULE_REQUIRE_APPROVAL: { rpc: -32004, status: 200, message: 'No rule applies to this tool; the call is held for approval.' },
  PENDING_APPROVALS_LIMIT: {
    rpc: -32005,
    status: 200,
    message: 'Too many approval requests are already pending for this agent or this key.',
  },
  APPROVAL_RATE_LIMITED: {
    rpc: -32005,
    status: 200,
    message: 'This key opened too many approval requests in the last minute; try again later.',
  },
  UPSTREAM_INVALID_RESPONSE: { rpc: -32006, status: 200, message: 'The MCP server sent an invalid response or a protocol error.' },
  UPSTREAM_UNREACHABLE: { rpc: -32007, status: 200, message: 'The MCP server is unreachable.' },
  UPSTREAM_AUTH_UNAVAILABLE: {
    rpc: -32008,
    status: 403,
    message: "The MCP server's sign-in cannot be attached; the call is refused (fail closed).",
  },
  HEADER_MISMATCH: { rpc: -32020, status: 400, message: 'An Mcp-Method, Mcp-Name or Mcp-Param-* header does not match the request body.' },
  SESSION_NOT_BOUND: { rpc: -32600, status: 404, message: 'Unknown MCP session for this credential; initialize a new session.' },
  INVALID_REQUEST: { rpc: -32600, status: 400, message: 'The body is not a JSON-RPC 2.0 message the proxy accepts.' },
  INVALID_PARAMS: { rpc: -32602, status: 400, message: 'The request parameters are not valid.' },
} as const satisfies Record<string, { readonly rpc: number; readonly status: number; readonly message: string }>;

export type McpRpcReason = keyof typeof MCP_RPC_ERRORS;
