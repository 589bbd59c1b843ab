// zod validation of bodies and queries: a failure is 400 validation_error naming each failing field.
// The route table runs it on what a route declares (server.ts); a handler calls it only for input
// it reads from somewhere else. Field names and unknown keys are input: quoted() keeps them short.
import { z } from 'zod';
import { GatewayError } from '../../shared/errors.js';
import { quoted } from '../../shared/text.js';

/** Issues named in one message; the rest are counted. */
const MAX_ISSUES = 10;
/** Unknown keys named in one issue; the rest are counted. */
const MAX_KEYS = 5;

export type InputPlace = 'body' | 'query';

const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** A field as a message names it: plain names as they are, any other key quoted. */
export function fieldOf(path: readonly PropertyKey[], where: InputPlace): string {
  const names = path.map((p) => (typeof p === 'number' || (typeof p === 'string' && PLAIN_NAME.test(p)) ? String(p) : quoted(String(p))));
  if (where === 'query') return ['query', ...names].join('.');
  return names.length > 0 ? names.join('.') : 'body';
}

function messageOf(issue: z.core.$ZodIssue): string {
  if (issue.code !== 'unrecognized_keys') return issue.message;
  const named = issue.keys.slice(0, MAX_KEYS).map(quoted).join(', ');
  const more = issue.keys.length > MAX_KEYS ? ` and ${issue.keys.length - MAX_KEYS} more` : '';
  return `Unrecognized key${issue.keys.length > 1 ? 's' : ''}: ${named}${more}`;
}

/** The failing fields as one message (`under`: the field the validated value sits in, e.g. config). */
export function issuesText(issues: readonly z.core.$ZodIssue[], where: InputPlace, under: readonly PropertyKey[] = []): string {
  const parts = issues.slice(0, MAX_ISSUES).map((issue) => `${fieldOf([...under, ...issue.path], where)}: ${messageOf(issue)}`);
  if (issues.length > MAX_ISSUES) parts.push(`and ${issues.length - MAX_ISSUES} more`);
  return `Invalid request: ${parts.join('; ')}`;
}

export function parseInput<S extends z.ZodType>(schema: S, value: unknown, where: InputPlace = 'body'): z.infer<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new GatewayError('validation_error', issuesText(result.error.issues, where));
}

/**
 * A query as its schema reads it. A parameter the schema declares, given twice, is refused rather
 * than read as its first or last value (a proxy and the gateway could read different ones); names
 * it does not declare are left to the schema (an object schema ignores them).
 */
export function parseQuery<S extends z.ZodType>(schema: S, params: URLSearchParams): z.infer<S> {
  const declared = schema instanceof z.ZodObject ? new Set(Object.keys(schema.shape)) : null;
  const values = new Map<string, string>();
  for (const [name, value] of params) {
    if (values.has(name) && (declared === null || declared.has(name)))
      throw new GatewayError('validation_error', `Invalid request: ${fieldOf([name], 'query')}: given more than once; give it once`);
    values.set(name, value);
  }
  return parseInput(schema, Object.fromEntries(values), 'query');
}
