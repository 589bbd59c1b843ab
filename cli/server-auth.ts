// The sign-in flags of `servers update`: how they combine (checked before anything is read or
// sent) and the auth_method / auth_config fields they become. The daemon replaces auth_config
// whole, so a header needs its name and value in the same call.
import { Flags } from '@oclif/core';
import { UsageError } from './errors.js';
import { readSecret, type SecretSource } from './secret-input.js';

export const AUTH_FLAGS = {
  'auth-method': Flags.string({
    summary: 'Sign-in method: none, bearer, header or token_exchange (other values are kept but cannot be attached).',
  }),
  'bearer-token-file': Flags.string({ summary: 'Read the bearer token from this file ("-": stdin). Implies --auth-method bearer.' }),
  'bearer-token': Flags.string({ summary: 'Only "-": read the bearer token from stdin. Implies --auth-method bearer.' }),
  'header-name': Flags.string({ summary: 'Name of the header that carries the credential. Needs --header-value-file.' }),
  'header-value-file': Flags.string({ summary: 'Read the header value from this file ("-": stdin). Implies --auth-method header.' }),
  'clear-auth': Flags.boolean({ summary: 'Drop the stored credential and sign in with none.' }),
  'exchange-client-id': Flags.string({
    summary:
      "Sign in as the caller (RFC 8693 token exchange): the gateway's client id at the identity provider. Implies --auth-method token_exchange.",
  }),
  'exchange-client-secret-file': Flags.string({
    summary: 'Read that client\'s secret from this file ("-": stdin). Needs --exchange-client-id.',
  }),
  'exchange-resource': Flags.string({ summary: "The upstream's resource identifier (RFC 8707) the exchanged token is for." }),
  'exchange-audience': Flags.string({
    summary: "The upstream's audience, where the provider names it so (give it or --exchange-resource).",
  }),
  'exchange-scope': Flags.string({ summary: 'Scopes the exchanged token asks for, space-separated.' }),
};

const EXCHANGE_FLAGS = [
  'exchange-client-id',
  'exchange-client-secret-file',
  'exchange-resource',
  'exchange-audience',
  'exchange-scope',
] as const;

export interface AuthFlagValues {
  'auth-method'?: string;
  'bearer-token-file'?: string;
  'bearer-token'?: string;
  'header-name'?: string;
  'header-value-file'?: string;
  'clear-auth'?: boolean;
  'exchange-client-id'?: string;
  'exchange-client-secret-file'?: string;
  'exchange-resource'?: string;
  'exchange-audience'?: string;
  'exchange-scope'?: string;
}

/** What the sign-in flags ask for, once their combination is known to be sound. */
export type AuthPlan =
  | { kind: 'none' }
  | { kind: 'clear' }
  | { kind: 'method'; method: string }
  | { kind: 'bearer'; secret: SecretSource }
  | { kind: 'header'; name: string; secret: SecretSource }
  | { kind: 'exchange'; settings: Record<string, string>; secret: SecretSource };

/** The flag an auth_config problem is reported under. */
export function authConfigFlag(plan: AuthPlan): string {
  if (plan.kind === 'exchange') return '--exchange-*';
  return plan.kind === 'header' ? '--header-name/--header-value-file' : '--bearer-token-file';
}

/** Checks how the flags combine; reads nothing, so a mistake costs no stdin and no request. */
export function planAuth(flags: AuthFlagValues): AuthPlan {
  const method = flags['auth-method']?.trim().toLowerCase();
  const bearer = bearerSource(flags);
  const headerName = flags['header-name'];
  const headerFile = flags['header-value-file'];
  if ((headerName === undefined) !== (headerFile === undefined)) {
    throw new UsageError('--header-name and --header-value-file go together: the stored credential is replaced whole');
  }
  const exchange = EXCHANGE_FLAGS.some((f) => flags[f] !== undefined);
  if (flags['clear-auth']) {
    if (method !== undefined || bearer || headerName !== undefined || exchange) {
      throw new UsageError('--clear-auth takes no other sign-in flag (--auth-method, --bearer-token*, --header-*)');
    }
    return { kind: 'clear' };
  }
  if (bearer && headerName !== undefined) throw new UsageError('give a bearer token or a header, not both');
  if (exchange) return planExchange(flags, method, bearer !== undefined || headerName !== undefined);
  if (bearer) {
    if (method !== undefined && method !== 'bearer') throw new UsageError(`${bearer.flag} goes with --auth-method bearer`);
    return { kind: 'bearer', secret: bearer };
  }
  if (headerName !== undefined && headerFile !== undefined) {
    if (method !== undefined && method !== 'header')
      throw new UsageError('--header-name and --header-value-file go with --auth-method header');
    return { kind: 'header', name: headerName, secret: { flag: '--header-value-file', from: headerFile } };
  }
  if (method === 'token_exchange')
    throw new UsageError(
      '--auth-method token_exchange needs --exchange-client-id, --exchange-client-secret-file and --exchange-resource or --exchange-audience',
    );
  return method === undefined ? { kind: 'none' } : { kind: 'method', method: flags['auth-method']! };
}

/** Token exchange: the whole setting in one call (the daemon replaces auth_config whole), the secret from a file or stdin. */
function planExchange(flags: AuthFlagValues, method: string | undefined, other: boolean): AuthPlan {
  if (other) throw new UsageError('--exchange-* replaces a shared secret: give no --bearer-token* or --header-* with it');
  if (method !== undefined && method !== 'token_exchange') throw new UsageError('--exchange-* goes with --auth-method token_exchange');
  const id = flags['exchange-client-id'];
  const file = flags['exchange-client-secret-file'];
  if (id === undefined || file === undefined)
    throw new UsageError('token exchange needs --exchange-client-id and --exchange-client-secret-file together');
  const settings: Record<string, string> = { client_id: id };
  if (flags['exchange-resource'] !== undefined) settings.resource = flags['exchange-resource'];
  if (flags['exchange-audience'] !== undefined) settings.audience = flags['exchange-audience'];
  if (flags['exchange-scope'] !== undefined) settings.scope = flags['exchange-scope'];
  return { kind: 'exchange', settings, secret: { flag: '--exchange-client-secret-file', from: file } };
}

/** --bearer-token accepts only "-": a token typed on the command line would stay in the shell history. */
function bearerSource(flags: AuthFlagValues): SecretSource | undefined {
  const file = flags['bearer-token-file'];
  const inline = flags['bearer-token'];
  if (inline !== undefined && inline !== '-') {
    // The value is deliberately not repeated: it is probably the token itself.
    throw new UsageError(
      '--bearer-token takes only "-" (read the token from stdin); to keep the token out of shell history, '
        + 'pipe it in or put it in a file and pass --bearer-token-file FILE',
    );
  }
  if (file !== undefined && inline !== undefined) throw new UsageError('give --bearer-token-file or --bearer-token -, not both');
  if (file !== undefined) return { flag: '--bearer-token-file', from: file };
  return inline === undefined ? undefined : { flag: '--bearer-token', from: '-' };
}

/** The body fields of the plan, reading the secret it names. */
export async function authFields(plan: AuthPlan): Promise<Record<string, unknown>> {
  switch (plan.kind) {
    case 'none':
      return {};
    case 'clear':
      return { auth_method: 'none', auth_config: null };
    case 'method':
      return { auth_method: plan.method };
    case 'bearer':
      return { auth_method: 'bearer', auth_config: { token: await readSecret(plan.secret) } };
    case 'header':
      return { auth_method: 'header', auth_config: { name: plan.name, value: await readSecret(plan.secret) } };
    case 'exchange':
      return { auth_method: 'token_exchange', auth_config: { ...plan.settings, client_secret: await readSecret(plan.secret) } };
  }
}
