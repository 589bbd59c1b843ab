// What an approval is bound to: the canonical hash of a call's exact arguments. The caller may
// carry the approval id inside the arguments (`_gateway_approval_id`); it is taken out first, so
// it is neither hashed nor forwarded.
//
// Canonical form: RFC 8785 (JSON Canonicalization Scheme, shared/canonical-json.ts) of the
// arguments object, absent arguments counting as {}. So: object keys sorted by UTF-16 code units
// at every depth, whitespace dropped; numbers in ECMAScript's shortest round-trip form (1, 1.0 and
// 1e0 are the same argument; integers beyond 2^53 have already lost precision in JSON.parse, as
// they do for the forwarded body); strings compared exactly as sent, with no Unicode normalisation
// (a precomposed "é" and "e" + combining accent are different arguments), escapes resolved.
// Array order matters. The hash is `sha256:` + 64 lower-case hex digits.
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../../shared/canonical-json.js';

export const APPROVAL_ARGUMENT = '_gateway_approval_id';

export function argumentsHash(args: Readonly<Record<string, unknown>> | undefined): string {
  return (
    'sha256:'
    + createHash('sha256')
      .update(canonicalJson(args ?? {}), 'utf8')
      .digest('hex')
  );
}

/**
 * What an approval binds: the arguments' hash as above, or, when the call's params
 * carry members beside name, arguments and `_meta` (the upstream reads them too), the hash of
 * [arguments, those members] (an array: it cannot be the canonical form of any arguments object).
 * `_meta` is request metadata (a progress token differs on every repeat) and is not bound.
 */
export function bindingHash(args: Readonly<Record<string, unknown>> | undefined, otherParams: Readonly<Record<string, unknown>>): string {
  const { _meta: _request, ...bound } = otherParams;
  if (Object.keys(bound).length === 0) return argumentsHash(args);
  return (
    'sha256:'
    + createHash('sha256')
      .update(canonicalJson([args ?? {}, bound]), 'utf8')
      .digest('hex')
  );
}

export interface SplitArguments {
  /** The arguments as forwarded (and hashed), without the approval id; undefined when none were sent. */
  readonly forwarded: Record<string, unknown> | undefined;
  /** The approval id found in the arguments, if any. */
  readonly approvalId: string | undefined;
}

/** Takes `_gateway_approval_id` out of the arguments; a non-string value there is invalid. */
export function splitArguments(args: Record<string, unknown> | undefined): SplitArguments | { invalid: string } {
  if (args === undefined || !Object.hasOwn(args, APPROVAL_ARGUMENT)) return { forwarded: args, approvalId: undefined };
  const { [APPROVAL_ARGUMENT]: id, ...rest } = args;
  if (typeof id !== 'string' || !/^[\x21-\x7e]{1,100}$/.test(id)) return { invalid: `${APPROVAL_ARGUMENT} must be an approval id` };
  return { forwarded: rest, approvalId: id };
}
