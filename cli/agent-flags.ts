// What the agents commands share about flags: flag names are the API's snake_case fields in
// kebab-case, JSON-valued flags are parsed here, and a rejected body names the flag at fault.
import type { z } from 'zod';
import { UsageError } from './errors.js';

/** The flag an operator typed for an API field (`risk_classification` -> `--risk-classification`). */
export function flagFor(field: PropertyKey | undefined, renamed: Readonly<Record<string, string>> = {}): string {
  const name = String(field ?? '');
  return renamed[name] ?? `--${name.replaceAll('_', '-')}`;
}

/** The body fields of the flags that were given, under their API names. */
export function fieldsFromFlags(
  flags: Readonly<Record<string, unknown>>,
  fields: Readonly<Record<string, string>>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(fields)) {
    if (flags[flag] !== undefined) body[field] = flags[flag];
  }
  return body;
}

/** JSON typed on the command line; a parse failure is the operator's to fix, so exit 2. */
export function parseJsonFlag(flag: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${flag}: not valid JSON (${(err as Error).message})`);
  }
}

/** Checks a body with the daemon's own schema before sending it; a refusal names the flags. */
export function checkBody<S extends z.ZodType>(schema: S, body: unknown, renamed: Readonly<Record<string, string>> = {}): z.infer<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw new UsageError(result.error.issues.map((i) => `${flagFor(i.path[0], renamed)}: ${i.message}`).join('; '));
}
