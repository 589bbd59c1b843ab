// zod validation of bodies and queries: a failure is 400 validation_error naming each failing field.
import type { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';

export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const parts = result.error.issues.slice(0, 10).map((issue) => {
    const field = issue.path.length > 0 ? issue.path.join('.') : 'body';
    return `${field}: ${issue.message}`;
  });
  throw new GatewayError('validation_error', `Invalid request: ${parts.join('; ')}`);
}
