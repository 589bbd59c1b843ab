// The stdio part of a server record: what registration stores (secret variables sealed with the
// daemon's secret box, like auth_config), what the API shows of it (secret variables by name only),
// and the definition the stdio servers run from (secrets opened for that start only).
import type { StdioServerRegister } from '../../../shared/mcp-schemas.js';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { StdioDefinition } from '../stdio/stdio-servers.js';

export const STDIO_ENV_PURPOSE = 'gw.mcp.stdio-env.v1';

export interface StdioColumns {
  transport: 'http' | 'stdio';
  command: string | null;
  args: string[];
  cwd: string | null;
  env: Record<string, string>;
  secret_env: unknown;
  secret_env_names: string[];
  grants: { path: string; mode: 'ro' | 'rw' }[];
  network_allowed: boolean;
  process_mode: 'shared' | 'per-session';
}

/** What the API shows of a stdio server's registration: never a secret value. */
export interface StdioPart {
  command: string;
  args: string[];
  cwd: string | null;
  env: Record<string, string>;
  secret_env_names: string[];
  grants: { path: string; mode: 'ro' | 'rw' }[];
  network: boolean;
  process_mode: 'shared' | 'per-session';
}

/** The columns a stdio registration writes (server_url: `stdio:<command>`, no address). */
export function stdioColumns(box: SecretBox, body: StdioServerRegister): Omit<StdioColumns, 'secret_env'> & { secret_env: unknown } {
  const secretNames = Object.keys(body.secret_env).sort();
  return {
    transport: 'stdio',
    command: body.command,
    args: body.args,
    cwd: body.cwd,
    env: body.env,
    secret_env: secretNames.length === 0 ? null : box.seal(JSON.stringify(body.secret_env), STDIO_ENV_PURPOSE),
    secret_env_names: secretNames,
    grants: body.grants,
    network_allowed: body.network,
    process_mode: body.process_mode,
  };
}

export function presentStdio(row: StdioColumns): StdioPart | null {
  if (row.transport !== 'stdio' || row.command === null) return null;
  return {
    command: row.command,
    args: row.args,
    cwd: row.cwd,
    env: row.env,
    secret_env_names: row.secret_env_names,
    grants: row.grants,
    network: row.network_allowed,
    process_mode: row.process_mode,
  };
}

/** How the server is run: its secret variables opened for this start only. */
export function stdioDefinition(box: SecretBox, row: StdioColumns & { id: string; project_id: string }): StdioDefinition {
  const secret = row.secret_env ? (JSON.parse(box.open(row.secret_env as never, STDIO_ENV_PURPOSE)) as Record<string, string>) : {};
  return {
    id: row.id,
    projectId: row.project_id,
    command: row.command!,
    args: row.args,
    cwd: row.cwd,
    env: { ...row.env, ...secret },
    secretNames: Object.keys(secret),
    grants: row.grants,
    network: row.network_allowed,
  };
}
