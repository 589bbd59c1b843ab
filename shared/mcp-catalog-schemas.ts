// zod schemas of the MCP template and registry endpoints, shared by the daemon and gatewayctl.
import { z } from 'zod';

/** The spec leaves the maximum open; 100 matches the official registry's own page cap. */
export const REGISTRY_PAGE_MAX = 100;
/** The spec's request form uses 50. */
export const REGISTRY_PAGE_DEFAULT = 50;

export const registryQuery = z.object({
  q: z.string().trim().max(200).optional(),
  frontable: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
  cursor: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(REGISTRY_PAGE_MAX).default(REGISTRY_PAGE_DEFAULT),
});
export type RegistryQuery = z.output<typeof registryQuery>;

export const fromTemplateBody = z
  .object({
    template_id: z.string().trim().min(1).max(100),
    name: z
      .string()
      .max(200)
      .refine((v) => v.trim().length > 0, { message: 'must not be empty' })
      .optional(),
  })
  .strict();
