// zod schemas of the MCP server endpoints, shared by the daemon and gatewayctl.
import { z } from 'zod';

export const MCP_RULES = ['ALLOW', 'LOG_ONLY', 'REQUIRE_APPROVAL', 'DENY'] as const;
export const SERVER_STATUSES = ['PENDING_APPROVAL', 'ACTIVE', 'BLOCKED'] as const;
/** The sign-in methods the gateway can attach; any other value is kept but cannot be attached. */
export const ATTACHABLE_AUTH = ['none', 'bearer', 'header', 'token_exchange'] as const;

const scopeToken = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
/**
 * auth_config of auth_method token_exchange (RFC 8693, docs/identity.md#upstream-identity): the
 * gateway's own client at the authorization server (its secret sealed like every auth_config) and
 * what to ask for: the upstream's resource (RFC 8707) and/or audience, and the scopes.
 */
export const tokenExchangeConfig = z
  .object({
    client_id: z
      .string()
      .min(1)
      .max(200)
      .regex(/^[\x20-\x7e]+$/, 'printable ASCII'),
    client_secret: z
      .string()
      .min(1)
      .max(2000)
      .regex(/^[\x20-\x7e]+$/, 'printable ASCII'),
    resource: serverUrlOf().optional(),
    audience: z.string().trim().min(1).max(2000).optional(),
    scope: z
      .string()
      .max(2000)
      .refine((v) => v.split(' ').every((s) => scopeToken.test(s)), { message: 'scopes separated by single spaces' })
      .optional(),
  })
  .strict()
  .refine((c) => c.resource !== undefined || c.audience !== undefined, {
    message: 'token_exchange needs resource or audience: what the upstream accepts',
    path: ['resource'],
  });
export type TokenExchangeConfig = z.output<typeof tokenExchangeConfig>;

function serverUrlOf() {
  return z.url({ protocol: /^https?$/ }).max(2000);
}

const serverUrl = z
  .url({ protocol: /^https?$/ })
  .max(2000)
  // zod runs a refinement even on a value the checks above refused: it must not assume a parsable URL.
  .refine(
    (u) => {
      const p = URL.parse(u);
      return p === null || (p.username === '' && p.password === '');
    },
    { message: 'credentials in the URL are not allowed; use auth_method and auth_config' },
  );

const name = z
  .string()
  .max(200)
  .refine((v) => v.trim().length > 0, { message: 'must not be empty' });

/** An HTTP server: the gateway calls its address (`transport` may be left out). */
export const httpServerRegisterBody = z
  .object({
    transport: z.literal('http').optional(),
    name,
    server_url: serverUrl,
    connector_type: z.string().trim().min(1).max(100).default('custom'),
    description: z.string().max(2000).nullable().optional(),
    is_proxied: z.boolean().default(false),
  })
  .strict();

export const PROCESS_MODES = ['shared', 'per-session'] as const;

const envName = z
  .string()
  .max(200)
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name: letters, digits and _, not starting with a digit');
const envMap = z
  .record(
    envName,
    z
      .string()
      .max(8192)
      .refine((v) => !v.includes('\0'), { message: 'no NUL character' }),
  )
  .refine((m) => Object.keys(m).length <= 100, { message: 'at most 100 variables' });
const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\0'), { message: 'an absolute path without ".."' });

/**
 * A stdio server: a program the gateway starts in a sandbox (docs/stdio-servers.md). `command` must
 * be allowed by GATEWAY_STDIO_COMMANDS; `secret_env` values are sealed at rest and never returned.
 */
export const stdioServerRegisterBody = z
  .object({
    transport: z.literal('stdio'),
    name,
    command: z.string().trim().min(1).max(4096),
    args: z.array(z.string().max(8192)).max(200).default([]),
    cwd: absolutePath.nullable().default(null),
    env: envMap.default({}),
    secret_env: envMap.default({}),
    grants: z
      .array(z.object({ path: absolutePath, mode: z.enum(['ro', 'rw']) }).strict())
      .max(50)
      .default([]),
    network: z.boolean().default(false),
    process_mode: z.enum(PROCESS_MODES).default('shared'),
    connector_type: z.string().trim().min(1).max(100).default('custom'),
    description: z.string().max(2000).nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b.env).every((k) => !(k in b.secret_env)), {
    message: 'a variable is either plain (env) or secret (secret_env), not both',
    path: ['secret_env'],
  });
export type StdioServerRegister = z.output<typeof stdioServerRegisterBody>;

/** POST /api/v1/mcp/servers: an HTTP server (the default) or, with `transport: "stdio"`, a stdio one. */
export const serverRegisterBody = z.discriminatedUnion('transport', [httpServerRegisterBody, stdioServerRegisterBody], {
  error: 'must be http (or left out) or stdio',
});
export type ServerRegister = z.output<typeof serverRegisterBody>;

export const serverPatchBody = z
  .object({
    name: name.optional(),
    description: z.string().max(2000).nullable().optional(),
    auth_method: z
      .string()
      .trim()
      .min(1)
      .max(50)
      .regex(/^[a-z0-9_-]+$/i, 'letters, digits, - and _')
      .optional(),
    auth_config: z.record(z.string().max(200), z.string().max(8192)).nullable().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'give at least one of name, description, auth_method, auth_config' })
  .superRefine((b, ctx) => {
    // The exchange's settings are checked here; once stored they are sealed and cannot be read back to check.
    if (b.auth_method?.toLowerCase() !== 'token_exchange') return;
    if (b.auth_config === undefined || b.auth_config === null) {
      ctx.addIssue({
        code: 'custom',
        message: 'token_exchange needs client_id, client_secret and resource or audience',
        path: ['auth_config'],
      });
      return;
    }
    const config = tokenExchangeConfig.safeParse(b.auth_config ?? undefined);
    if (!config.success)
      for (const issue of config.error.issues)
        ctx.addIssue({ code: 'custom', message: issue.message, path: ['auth_config', ...issue.path] });
  });
export type ServerPatch = z.output<typeof serverPatchBody>;

const ruleEnum = z.enum(MCP_RULES, { error: `must be one of ${MCP_RULES.join(', ')}` });

export const mcpPolicyCreateBody = z
  .object({
    action: ruleEnum,
    mcp_tool_id: z.string().min(1).max(100).optional(),
    agent_id: z.string().min(1).max(200).optional(),
    reason: z.string().max(2000).optional(),
    conditions: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((b) => b.mcp_tool_id !== undefined || b.agent_id !== undefined, {
    message: 'give at least one of mcp_tool_id, agent_id',
    path: ['mcp_tool_id'],
  });
export type McpPolicyCreate = z.output<typeof mcpPolicyCreateBody>;

export const verdictBody = z
  .object({
    action: ruleEnum,
    reason: z.string().max(2000).optional(),
  })
  .strict();

/** The answer of POST /api/v1/mcp/servers/{id}/scan (daemon/mcp/scan/scan-server.ts; gatewayctl servers scan). */
export type ScanReply =
  | {
      scanned: true;
      tool_count: number;
      tools_new: number;
      tools_vanished: number;
      poisoning_suspects: number;
      policies_bound: number;
      tools_unreleased: number;
      server_status: string;
    }
  | { scanned: false; reason: string; detail: string; target: string; server_status: string };

/** The answer of POST /api/v1/mcp/emergency-stop. */
export interface McpStopReply {
  scope: 'server' | 'agent';
  target_id: string;
  reason: string | null;
  approvals_ended: number;
  previous_status?: string;
  server_status?: string;
}
