// How a stdio MCP server's process is confined: the bubblewrap command line that starts it. The
// process gets its own user, PID, IPC, UTS and mount namespaces (and no network unless its
// registration allows it), a read-only view of the system (/usr and the few /etc files programs need
// to run), a private writable home, the paths its registration grants, and nothing of the gateway's
// own: no data directory, keys or token files (they are never mounted, and hidden under an empty
// directory if a grant or a system path would reach them), and no environment but the one given.
// prlimit, inside the sandbox, caps its address space, open files, processes and CPU time;
// --die-with-parent and the PID namespace end it, and everything it forked, with the daemon.
// Pure: it builds argv; sandbox-check.ts looks for the binaries, stdio-process.ts runs them.

export const BWRAP_BIN = '/usr/bin/bwrap';
export const PRLIMIT_BIN = '/usr/bin/prlimit';

/** Where the private writable directory appears inside the sandbox (also HOME and the default cwd). */
export const SANDBOX_HOME = '/home/mcp';

/** The system files a program needs to run, mounted read-only when they exist. */
const SYSTEM_RO = [
  '/usr',
  '/etc/alternatives',
  '/etc/ca-certificates',
  '/etc/ssl',
  '/etc/resolv.conf',
  '/etc/hosts',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/group',
  '/etc/localtime',
  '/etc/ld.so.cache',
  '/etc/mime.types',
];

/** Debian's merged /usr: these are links into /usr, recreated as links. */
const USR_LINKS: readonly [string, string][] = [
  ['usr/bin', '/bin'],
  ['usr/sbin', '/sbin'],
  ['usr/lib', '/lib'],
  ['usr/lib64', '/lib64'],
];

export interface SandboxLimits {
  /** Address space (RLIMIT_AS), bytes. */
  readonly memoryBytes: number;
  /** Open file descriptors (RLIMIT_NOFILE). */
  readonly openFiles: number;
  /** Processes of the sandbox's user (RLIMIT_NPROC; not enforced when the daemon runs as root). */
  readonly processes: number;
  /** CPU time (RLIMIT_CPU), seconds: the process is killed past it. */
  readonly cpuSeconds: number;
}

export interface PathGrant {
  readonly path: string;
  readonly mode: 'ro' | 'rw';
}

export interface SandboxSpec {
  /** Absolute path of the executable (already checked against the operator's allow-list). */
  readonly command: string;
  readonly args: readonly string[];
  /** Working directory inside the sandbox; default the private home. */
  readonly cwd: string | null;
  /** The whole environment the process sees (besides PATH and HOME, which are set here unless given). */
  readonly env: Readonly<Record<string, string>>;
  readonly network: boolean;
  readonly grants: readonly PathGrant[];
  /** Host path of the server's private writable directory. */
  readonly privateDir: string;
  /** Host paths that must never be visible inside (the gateway's data directory, key and token files' folders). */
  readonly hidden: readonly string[];
  readonly limits: SandboxLimits;
}

const within = (child: string, parent: string): boolean =>
  child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/** The argv (after the bwrap binary) that runs `spec.command` confined. */
export function sandboxArgs(spec: SandboxSpec): string[] {
  const argv = ['--die-with-parent', '--new-session', '--unshare-user', '--unshare-pid', '--unshare-ipc', '--unshare-uts'];
  argv.push('--unshare-cgroup-try');
  if (!spec.network) argv.push('--unshare-net');
  for (const p of SYSTEM_RO) argv.push('--ro-bind-try', p, p);
  for (const [target, link] of USR_LINKS) argv.push('--symlink', target, link);
  argv.push('--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp');
  argv.push('--bind', spec.privateDir, SANDBOX_HOME);
  for (const grant of spec.grants) argv.push(grant.mode === 'rw' ? '--bind' : '--ro-bind', grant.path, grant.path);
  // A grant or a system path that reaches one of the gateway's own folders: an empty directory over it.
  const mounted = [...SYSTEM_RO, ...spec.grants.map((g) => g.path)];
  for (const secret of spec.hidden) {
    if (mounted.some((m) => within(secret, m))) argv.push('--tmpfs', secret);
  }
  argv.push('--clearenv');
  const env: Record<string, string> = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: SANDBOX_HOME, ...spec.env };
  for (const [name, value] of Object.entries(env)) argv.push('--setenv', name, value);
  argv.push('--chdir', spec.cwd ?? SANDBOX_HOME);
  const { memoryBytes, openFiles, processes, cpuSeconds } = spec.limits;
  argv.push(
    '--',
    PRLIMIT_BIN,
    `--as=${memoryBytes}`,
    `--nofile=${openFiles}`,
    `--nproc=${processes}`,
    `--cpu=${cpuSeconds}`,
    '--',
    spec.command,
    ...spec.args,
  );
  return argv;
}

/** Why a grant cannot be given: a relative path, or one that reaches a hidden folder or holds it. */
export function grantProblem(grant: PathGrant, hidden: readonly string[]): string | null {
  if (!grant.path.startsWith('/')) return `${grant.path}: a granted path is absolute`;
  if (grant.path.split('/').includes('..')) return `${grant.path}: a granted path has no ".." part`;
  for (const secret of hidden) {
    if (within(grant.path, secret)) return `${grant.path}: lies inside the gateway's own ${secret}`;
  }
  return null;
}

export interface Launch {
  readonly file: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string | undefined;
}

/** How a process starts: inside bubblewrap, or (GATEWAY_STDIO_UNSAFE_NO_SANDBOX) under prlimit alone, with only the given environment. */
export function launchOf(spec: SandboxSpec, confined: boolean): Launch {
  if (confined) return { file: BWRAP_BIN, args: sandboxArgs(spec), env: {}, cwd: undefined };
  const { memoryBytes, openFiles, processes, cpuSeconds } = spec.limits;
  return {
    file: PRLIMIT_BIN,
    args: [`--as=${memoryBytes}`, `--nofile=${openFiles}`, `--nproc=${processes}`, `--cpu=${cpuSeconds}`, '--', spec.command, ...spec.args],
    env: { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: spec.privateDir, ...spec.env },
    cwd: spec.cwd ?? spec.privateDir,
  };
}
