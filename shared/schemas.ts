// zod schemas of /api/v1 request bodies that both the daemon and gatewayctl use.
import { z } from 'zod';
import { ROLES } from './credentials.js';

export const roleSchema = z
  .string()
  .transform((v) => v.toLowerCase())
  .pipe(z.enum(ROLES));

export const createKeyBody = z
  .object({
    name: z.string().trim().min(1).max(200),
    role: roleSchema,
    user_id: z.string().trim().min(1).max(200).optional(),
  })
  .strict();

export const createExtensionBody = z
  .object({
    name: z.string().trim().min(1).max(200),
  })
  .strict();

export const AUDIT_LEVELS = ['minimal', 'standard', 'full'] as const;

/** What the MCP proxy leaves of a tools/list answer (daemon/mcp/proxy/list-filter.ts); the first is the default. */
export const MCP_TOOLS_LIST_MODES = ['admitted', 'callable', 'upstream'] as const;
export type McpToolsListMode = (typeof MCP_TOOLS_LIST_MODES)[number];

/** The longest a held MCP call may wait for its decision: the setting's and the header's maximum, in seconds. */
export const APPROVAL_WAIT_MAX_SECONDS = 900;

export const projectPatchBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    audit_detail_level: z.enum(AUDIT_LEVELS).optional(),
    retention_days: z.number().int().min(1).max(3650).optional(),
    attestation_enabled: z.boolean().optional(),
    tier: z.string().trim().min(1).max(50).optional(),
    rate_limit_per_minute: z.number().int().min(1).max(10_000_000).optional(),
    included_requests: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
    monthly_base_fee_eur: z.number().min(0).max(1e9).optional(),
    overage_eur_per_1000: z.number().min(0).max(1e6).optional(),
    mcp_tools_list: z.enum(MCP_TOOLS_LIST_MODES).optional(),
    approval_wait_seconds: z.number().int().min(0).max(APPROVAL_WAIT_MAX_SECONDS).optional(),
  })
  .strict();

export const stopBody = z
  .object({
    reason: z.string().max(2000).optional(),
  })
  .strict();

/** The project settings as GET/PATCH /api/v1/project answer them. */
export interface ProjectSettings {
  id: string;
  name: string;
  audit_detail_level: (typeof AUDIT_LEVELS)[number];
  retention_days: number;
  attestation_enabled: boolean;
  tier: string;
  rate_limit_per_minute: number;
  included_requests: number;
  monthly_base_fee_eur: number;
  overage_eur_per_1000: number;
  mcp_tools_list: McpToolsListMode;
  approval_wait_seconds: number;
  created_at: string;
  updated_at: string;
}
