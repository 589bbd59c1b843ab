// The kinds of value settings take, shared by config.ts and the setting groups spread into its
// schema (config-approvals.ts, ...): a positive integer with its default, and an on/off flag.
import { z } from 'zod';

export const positiveInt = (def: number) => z.coerce.number().int().positive().default(def);

/** 1/true or 0/false, off by default. */
export const flag = z
  .enum(['0', '1', 'true', 'false'], { error: 'expected 1/true or 0/false' })
  .default('0')
  .transform((v) => v === '1' || v === 'true');
