// The stdio part of `servers register --stdio`: the program and its arguments (after `--`), plain
// variables from --env, secret ones from a file or stdin (never argv: they would land in shell
// history and in `ps`), grants and the process mode, as the body of POST /api/v1/mcp/servers.
import { Flags } from '@oclif/core';
import { UsageError } from './errors.js';
import { readSecret } from './secret-input.js';

export const STDIO_FLAGS = {
  stdio: Flags.boolean({
    summary: 'A stdio server: the gateway starts the program given after -- (Admin; GATEWAY_STDIO_COMMANDS must allow it).',
  }),
  env: Flags.string({ summary: 'A plain variable NAME=VALUE for the program (repeatable); shown by servers get.', multiple: true }),
  'secret-env-file': Flags.string({ summary: 'A file of secret variables, NAME=VALUE lines; sealed by the daemon, never shown.' }),
  'secret-env-stdin': Flags.boolean({ summary: 'Read the secret variables (NAME=VALUE lines) from stdin.' }),
  cwd: Flags.string({ summary: "The program's working directory inside the sandbox (default its private home)." }),
  'grant-ro': Flags.string({ summary: 'A host path the program may read (repeatable).', multiple: true }),
  'grant-rw': Flags.string({ summary: 'A host path the program may read and write (repeatable).', multiple: true }),
  network: Flags.boolean({ summary: 'Let the program use the network (off by default).' }),
  'per-session': Flags.boolean({ summary: 'One process per client session instead of one shared.' }),
};

interface StdioFlagValues {
  env?: string[];
  'secret-env-file'?: string;
  'secret-env-stdin'?: boolean;
  cwd?: string;
  'grant-ro'?: string[];
  'grant-rw'?: string[];
  network?: boolean;
  'per-session'?: boolean;
}

/** NAME=VALUE pairs; `flag` names the source in errors, never a value. */
export function parseAssignments(flag: string, lines: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [i, line] of lines.entries()) {
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    const eq = line.indexOf('=');
    const name = eq === -1 ? '' : line.slice(0, eq).trim();
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw new UsageError(`${flag}: entry ${i + 1} is not NAME=VALUE`);
    if (name in out) throw new UsageError(`${flag}: ${name} is given twice`);
    out[name] = line.slice(eq + 1);
  }
  return out;
}

/** The stdio body fields; `program` is what followed `--`: the command and its arguments. */
export async function stdioFields(flags: StdioFlagValues, program: readonly string[]): Promise<Record<string, unknown>> {
  if (program.length === 0)
    throw new UsageError('--stdio: give the program after --, e.g. -- npx -y @modelcontextprotocol/server-everything');
  if (flags['secret-env-file'] !== undefined && flags['secret-env-stdin'])
    throw new UsageError('--secret-env-file and --secret-env-stdin: give one source of secret variables');
  const secretFrom = flags['secret-env-stdin'] ? '-' : flags['secret-env-file'];
  const secretFlag = flags['secret-env-stdin'] ? '--secret-env-stdin' : '--secret-env-file';
  const secretEnv =
    secretFrom === undefined ? {} : parseAssignments(secretFlag, (await readSecret({ flag: secretFlag, from: secretFrom })).split('\n'));
  return {
    transport: 'stdio',
    command: program[0],
    args: program.slice(1),
    env: parseAssignments('--env', flags.env ?? []),
    secret_env: secretEnv,
    ...(flags.cwd === undefined ? {} : { cwd: flags.cwd }),
    grants: [
      ...(flags['grant-ro'] ?? []).map((path) => ({ path, mode: 'ro' })),
      ...(flags['grant-rw'] ?? []).map((path) => ({ path, mode: 'rw' })),
    ],
    network: flags.network ?? false,
    process_mode: flags['per-session'] ? 'per-session' : 'shared',
  };
}
