// zod schemas of the MCP content policies (/api/v1/mcp/content-policies), shared by the daemon and
// gatewayctl: which detector looks at what goes into a tool (arguments) and what comes back
// (results), and what it does with a finding. One vocabulary with verify's prompt policies (the
// same detectors and actions), plus OFF. A detector's own configuration is checked by the detector
// (daemon side).
import { z } from 'zod';

export const CONTENT_DIRECTIONS = ['arguments', 'results'] as const;
export const CONTENT_DETECTORS = ['secrets', 'pii', 'injection'] as const;
export const CONTENT_ACTIONS = ['BLOCK', 'REDACT', 'FLAG', 'OFF'] as const;

export type ContentDirection = (typeof CONTENT_DIRECTIONS)[number];
export type ContentDetector = (typeof CONTENT_DETECTORS)[number];
export type ContentAction = (typeof CONTENT_ACTIONS)[number];

/**
 * What a project does when it has no policy of its own (docs/mcp-gateway.md, "Content governance"): a secret
 * leaving in arguments is refused, personal data and injection in arguments are flagged; injection
 * in a result is withheld (high confidence; medium flags), a secret in a result is masked, personal
 * data in results is not looked for.
 */
export const CONTENT_DEFAULTS: Readonly<Record<ContentDirection, Readonly<Record<ContentDetector, ContentAction>>>> = Object.freeze({
  arguments: Object.freeze({ secrets: 'BLOCK', pii: 'FLAG', injection: 'FLAG' }),
  results: Object.freeze({ secrets: 'REDACT', pii: 'OFF', injection: 'BLOCK' }),
});

const toolName = z
  .string()
  .min(1)
  .max(500)
  .refine((v) => !v.includes('\u0000'), { message: 'must not contain NUL' });

export const contentPolicyCreateBody = z
  .object({
    /** Absent: every server of the project. */
    server_id: z.string().min(1).max(100).optional(),
    /** A tool of server_id, by name (it survives re-scans). */
    tool_name: toolName.optional(),
    direction: z.enum(CONTENT_DIRECTIONS),
    detector: z.enum(CONTENT_DETECTORS),
    action: z.enum(CONTENT_ACTIONS),
    config: z.record(z.string(), z.unknown()).default({}),
  })
  .strict()
  .superRefine((p, ctx) => {
    if (p.tool_name !== undefined && p.server_id === undefined)
      ctx.addIssue({ code: 'custom', path: ['server_id'], message: 'a tool_name needs the server_id it belongs to' });
    if (p.action === 'REDACT' && p.detector === 'injection')
      ctx.addIssue({ code: 'custom', path: ['action'], message: 'injection cannot be redacted: BLOCK, FLAG or OFF' });
  });
export type ContentPolicyCreate = z.output<typeof contentPolicyCreateBody>;

export const contentPolicyPatchBody = z
  .object({
    action: z.enum(CONTENT_ACTIONS).optional(),
    config: z.record(z.string(), z.unknown()).optional(),
  })
  .strict()
  .refine((p) => p.action !== undefined || p.config !== undefined, { message: 'give action, config or both' });
export type ContentPolicyPatch = z.output<typeof contentPolicyPatchBody>;

export interface ContentPolicy {
  readonly id: string;
  readonly server_id: string | null;
  readonly tool_name: string | null;
  readonly direction: ContentDirection;
  readonly detector: ContentDetector;
  readonly action: ContentAction;
  readonly config: Record<string, unknown>;
  readonly created_by: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}
