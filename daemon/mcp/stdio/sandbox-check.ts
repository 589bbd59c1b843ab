// Whether stdio servers can run on this machine, decided once at start: sandboxed when bubblewrap
// and prlimit are there; else refused (with the reason every refusal names), or run unconfined when
// the operator set GATEWAY_STDIO_UNSAFE_NO_SANDBOX. The daemon starts either way.
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import { BWRAP_BIN, PRLIMIT_BIN } from './sandbox.js';

export type SandboxState =
  | { readonly mode: 'sandboxed' }
  | { readonly mode: 'unsafe'; readonly reason: string }
  | { readonly mode: 'unavailable'; readonly reason: string };

const executable = (file: string): Promise<boolean> =>
  fs.access(file, constants.X_OK).then(
    () => true,
    () => false,
  );

export async function checkSandbox(unsafeNoSandbox: boolean, bins = { bwrap: BWRAP_BIN, prlimit: PRLIMIT_BIN }): Promise<SandboxState> {
  const missing = [];
  if (!(await executable(bins.bwrap))) missing.push(`${bins.bwrap} (Debian package bubblewrap)`);
  if (!(await executable(bins.prlimit))) missing.push(`${bins.prlimit} (Debian package util-linux)`);
  if (missing.length === 0) return { mode: 'sandboxed' };
  const reason = `stdio servers need ${missing.join(' and ')}, which this machine lacks`;
  if (unsafeNoSandbox) return { mode: 'unsafe', reason: `${reason}; GATEWAY_STDIO_UNSAFE_NO_SANDBOX runs them unconfined` };
  return { mode: 'unavailable', reason: `${reason}; install it, or set GATEWAY_STDIO_UNSAFE_NO_SANDBOX=1 to run them unconfined` };
}
