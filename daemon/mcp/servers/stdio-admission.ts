// What a stdio server's registration must pass before anything is written (the Admin role, the
// operator's allow-list, grants clear of the gateway's own files), and the run-time state its
// record shows: whether this daemon sandboxes it, and its process's failures.
import { roleAtLeast, type Principal } from '../../../shared/credentials.js';
import { GatewayError } from '../../../shared/errors.js';
import type { StdioServerRegister } from '../../../shared/mcp-schemas.js';
import type { StdioServers } from '../stdio/stdio-servers.js';

/** Throws the refusal; returns when the registration may be written. */
export function checkStdioRegistration(stdio: StdioServers, principal: Principal, body: StdioServerRegister): void {
  if (!roleAtLeast(principal.role, 'admin'))
    throw new GatewayError('forbidden', 'Registering a stdio server (a program the gateway starts) needs the admin role.');
  const refusal = stdio.commandRefusal(body.command);
  if (refusal) throw new GatewayError('mcp_stdio_command_not_allowed', `${refusal}.`);
  for (const grant of body.grants) {
    const problem = stdio.grantRefusal(grant);
    if (problem) throw new GatewayError('mcp_stdio_grant_invalid', `grants: ${problem}.`);
  }
}

export interface ProcessState {
  /** sandboxed: in bubblewrap; unsafe: unconfined (GATEWAY_STDIO_UNSAFE_NO_SANDBOX); unavailable: refused to run. */
  sandbox: 'sandboxed' | 'unsafe' | 'unavailable';
  process: { running: boolean; failures: number; total_failures: number; last_end: string | null };
}

/** A stdio server's record with its sandbox and process state in this daemon; an HTTP one as it is. */
export function withProcessState<T extends { id: string; transport?: string }>(stdio: StdioServers, item: T): T | (T & ProcessState) {
  if (item.transport !== 'stdio') return item;
  const state = stdio.state(item.id);
  return {
    ...item,
    sandbox: stdio.sandbox.mode,
    process: {
      running: state?.running ?? false,
      failures: state?.failures ?? 0,
      total_failures: state?.totalFailures ?? 0,
      last_end: state?.lastEnd ?? null,
    },
  };
}
