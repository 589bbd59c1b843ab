// The operator's allow-list of stdio server programs (GATEWAY_STDIO_COMMANDS): a registration's
// command, an absolute path or a name looked up on the daemon's PATH, is allowed when it resolves to
// the same path as an entry of the list resolved the same way. No symlink is followed: the
// operator allows the path they wrote.
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';

function isExecutableFile(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The absolute path a command names: itself when absolute, else the first executable of that name on `searchPath`. */
export function resolveCommand(command: string, searchPath: string): string | null {
  if (command.startsWith('/')) return command.split('/').includes('..') ? null : path.normalize(command);
  if (command.includes('/') || command === '') return null;
  for (const dir of searchPath.split(':')) {
    if (!dir.startsWith('/')) continue;
    const candidate = path.join(dir, command);
    if (isExecutableFile(candidate)) return candidate;
  }
  return null;
}

export class AllowedCommands {
  private readonly paths: ReadonlySet<string>;

  constructor(
    readonly entries: readonly string[],
    private readonly searchPath: string,
  ) {
    const resolved = entries.map((e) => resolveCommand(e, searchPath)).filter((p): p is string => p !== null);
    this.paths = new Set(resolved);
  }

  get empty(): boolean {
    return this.entries.length === 0;
  }

  /** The absolute path to run for `command`, or null when the list does not allow it. */
  resolve(command: string): string | null {
    const resolved = resolveCommand(command, this.searchPath);
    return resolved !== null && this.paths.has(resolved) ? resolved : null;
  }
}
