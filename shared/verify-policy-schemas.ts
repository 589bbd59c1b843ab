// zod schemas of the prompt-policy endpoints (/api/v1/verify/policies), shared by the daemon and
// gatewayctl. A detector's own configuration is checked by the detector (daemon side).
import { z } from 'zod';

export const DETECTORS = ['pii', 'secrets', 'injection', 'keywords', 'regex'] as const;
export const POLICY_ACTIONS = ['BLOCK', 'REDACT', 'FLAG', 'REQUIRE_APPROVAL', 'WARN', 'JUSTIFY', 'REDIRECT'] as const;
/** Actions that only make sense to a browser extension, which shows them to the user. */
export const BROWSER_ACTIONS = ['WARN', 'JUSTIFY', 'REDIRECT'] as const;
export const SOURCES = ['api', 'browser'] as const;

export type PolicyAction = (typeof POLICY_ACTIONS)[number];

const environment = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^(\*|[A-Za-z0-9._-]+)$/, 'an environment name or *');

export const actionConfigSchema = z
  .object({
    redirect_url: z
      .url({ protocol: /^https?$/ })
      .max(2000)
      .optional(),
    message: z.string().trim().min(1).max(500).optional(),
  })
  .strict();

const policyFields = {
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(2000).nullable().optional(),
  detector: z.enum(DETECTORS),
  config: z.record(z.string(), z.unknown()).default({}),
  action: z.enum(POLICY_ACTIONS),
  action_config: actionConfigSchema.default({}),
  scope: z
    .object({
      sources: z.array(z.enum(SOURCES)).min(1).max(2).default(['api', 'browser']),
      environments: z.array(environment).min(1).max(50).default(['*']),
    })
    .strict()
    .default({ sources: ['api', 'browser'], environments: ['*'] }),
  enabled: z.boolean().default(true),
};

function actionFitsScope(
  p: { action?: string; action_config?: { redirect_url?: string }; scope?: { sources: string[] } },
  ctx: z.RefinementCtx,
): void {
  if (p.action && (BROWSER_ACTIONS as readonly string[]).includes(p.action) && p.scope?.sources.some((s) => s !== 'browser')) {
    ctx.addIssue({
      code: 'custom',
      path: ['scope', 'sources'],
      message: `${p.action} is shown by the browser extension: scope.sources must be ["browser"]`,
    });
  }
  if (p.action === 'REDIRECT' && !p.action_config?.redirect_url) {
    ctx.addIssue({ code: 'custom', path: ['action_config', 'redirect_url'], message: 'REDIRECT needs action_config.redirect_url' });
  }
}

export const policyCreateBody = z.object(policyFields).strict().superRefine(actionFitsScope);
export type PolicyCreate = z.output<typeof policyCreateBody>;

/** PATCH: any field but the detector (a different detector is a different policy). */
export const policyPatchBody = z
  .object({
    name: policyFields.name.optional(),
    description: policyFields.description,
    config: z.record(z.string(), z.unknown()).optional(),
    action: z.enum(POLICY_ACTIONS).optional(),
    action_config: actionConfigSchema.optional(),
    scope: z
      .object({
        sources: z.array(z.enum(SOURCES)).min(1).max(2),
        environments: z.array(environment).min(1).max(50),
      })
      .strict()
      .optional(),
    enabled: z.boolean().optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: 'nothing to change' });
export type PolicyPatch = z.output<typeof policyPatchBody>;

export const fieldRolesBody = z
  .object({
    fields: z
      .record(z.string().trim().min(1).max(200), z.enum(['routing', 'content']))
      .refine((f) => Object.keys(f).length >= 1 && Object.keys(f).length <= 200, { message: 'between 1 and 200 fields' }),
  })
  .strict();

/** GET /approvals/status: the trace a held verify call answered with. */
export const approvalStatusQuery = z.object({
  trace_id: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'a trace id (UUID) is required'),
});

export const approvalDecideBody = z
  .object({
    approved: z.boolean(),
    comment: z.string().trim().max(2000).optional(),
  })
  .strict();
