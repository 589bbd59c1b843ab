// The web console's own route bodies (daemon/api/console.ts): signing in with an API key.
import { z } from 'zod';

export const consoleSignInBody = z
  .object({
    /** An API key or user token, pasted once; checked as a bearer token is, never stored. */
    key: z.string().min(1).max(200),
  })
  .strict();
