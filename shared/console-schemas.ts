// The web console's own route bodies (daemon/api/console.ts): signing in with an API key.
import { z } from 'zod';

export const consoleSignInBody = z
  .object({
    /** An API key or user token, pasted once; checked as a bearer token is, never stored. */
    key: z.string().min(1).max(200),
  })
  .strict();

/**
 * What the issuer sends the browser back with (RFC 6749 4.1.2, RFC 9207's iss): read loosely,
 * since issuers add parameters of their own (session_state); the callback judges the values.
 */
export const consoleOidcCallbackQuery = z.object({
  code: z.string().min(1).max(4096).optional(),
  state: z.string().max(512).optional(),
  error: z.string().max(256).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(1024).optional(),
});
