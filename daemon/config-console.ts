// The web console's sign-in by the organisation's identity provider (GATEWAY_CONSOLE_OIDC_*): the
// console as an OpenID Connect client of GATEWAY_OIDC_ISSUER (authorization code flow with PKCE).
// Part of config.ts's one schema (spread into it), like config-identity.ts. Off while the client id
// is unset; on, it needs the issuer (a bad or missing value stops the start, naming the variable).
import fs from 'node:fs';
import { z } from 'zod';
import { positiveInt } from './config-values.js';

/** A client id as RFC 6749 allows it (VSCHAR), bounded. */
const clientId = z.string().regex(/^[\x20-\x7e]{1,200}$/, 'expected a client id (printable ASCII, at most 200 characters)');

/** A file holding the client secret (its whole content, trimmed): read once, at start. */
const secretFile = z.string().transform((file, ctx) => {
  let secret: string;
  try {
    secret = fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})` });
    return z.NEVER;
  }
  if (!/^[\x20-\x7e]{1,500}$/.test(secret)) {
    ctx.addIssue({ code: 'custom', message: `${file} must hold the client secret: one line of printable ASCII` });
    return z.NEVER;
  }
  return secret;
});

const scopes = z
  .string()
  .default('openid')
  .transform((v) => v.split(/[\s,]+/).filter(Boolean))
  .refine((list) => list.every((s) => /^[\x21\x23-\x5b\x5d-\x7e]+$/.test(s)), 'expected scope tokens (RFC 6749 3.3)')
  .transform((list) => (list.includes('openid') ? list : ['openid', ...list]));

export const consoleEnv = {
  GATEWAY_CONSOLE_OIDC_CLIENT_ID: clientId.optional(),
  GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE: secretFile.optional(),
  GATEWAY_CONSOLE_OIDC_SCOPES: scopes,
  /**
   * The longest life of a session opened by the identity provider (the lesser of this and
   * GATEWAY_CONSOLE_SESSION_MAX_SECONDS): its role is the one the claims granted at sign-in, so this
   * bounds how long a person removed from a group at the provider keeps that group's role here.
   */
  GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS: positiveInt(3600),
};

type ConsoleEnv = z.output<z.ZodObject<typeof consoleEnv>> & { GATEWAY_OIDC_ISSUER?: string };

/** The settings' cross-rule: a console client belongs to an issuer. */
export function checkConsoleEnv(e: ConsoleEnv, ctx: z.RefinementCtx): void {
  if (e.GATEWAY_CONSOLE_OIDC_CLIENT_ID !== undefined && e.GATEWAY_OIDC_ISSUER === undefined)
    ctx.addIssue({
      code: 'custom',
      path: ['GATEWAY_CONSOLE_OIDC_CLIENT_ID'],
      message: 'needs GATEWAY_OIDC_ISSUER (the issuer the console signs in with)',
    });
  if (e.GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE !== undefined && e.GATEWAY_CONSOLE_OIDC_CLIENT_ID === undefined)
    ctx.addIssue({ code: 'custom', path: ['GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE'], message: 'needs GATEWAY_CONSOLE_OIDC_CLIENT_ID' });
}

export interface ConsoleOidcConfig {
  readonly clientId: string;
  /** null: a public client (PKCE alone); else sent by HTTP Basic (client_secret_basic). */
  readonly clientSecret: string | null;
  /** Asked for at the authorization endpoint; always includes openid. */
  readonly scopes: readonly string[];
  /** The longest life of a session it opens, in seconds (GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS). */
  readonly sessionMaxSeconds: number;
}

export function consoleOidcConfigOf(e: ConsoleEnv): ConsoleOidcConfig | null {
  if (e.GATEWAY_CONSOLE_OIDC_CLIENT_ID === undefined || e.GATEWAY_OIDC_ISSUER === undefined) return null;
  return Object.freeze({
    clientId: e.GATEWAY_CONSOLE_OIDC_CLIENT_ID,
    clientSecret: e.GATEWAY_CONSOLE_OIDC_CLIENT_SECRET_FILE ?? null,
    scopes: Object.freeze([...e.GATEWAY_CONSOLE_OIDC_SCOPES]),
    sessionMaxSeconds: e.GATEWAY_CONSOLE_OIDC_SESSION_MAX_SECONDS,
  });
}
