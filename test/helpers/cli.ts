// Runs the compiled gatewayctl as an operator would, with a clean environment: nothing from the
// developer's own login leaks in.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const CLI_BIN = path.join(root, 'dist/cli/bin/gatewayctl.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
  // biome-ignore lint/suspicious/noExplicitAny: stdout parsed as JSON, whatever the command printed; tests read it by path
  json: any;
}

export function runCli(args: string[], home: string, env: Record<string, string>): Promise<CliRun> {
  return run(args, home, env, null);
}

/** runCli with `input` piped to the command's stdin. */
export function ctlWithStdin(args: string[], input: string, home: string, env: Record<string, string>): Promise<CliRun> {
  return run(args, home, env, input);
}

/** A running command whose output so far can be read (a device sign-in prints its code, then waits). */
export interface RunningCli {
  output(): { stdout: string; stderr: string };
  readonly done: Promise<CliRun>;
}

export function startCli(args: string[], home: string, env: Record<string, string>): RunningCli {
  return start(args, home, env, null);
}

function run(args: string[], home: string, env: Record<string, string>, input: string | null): Promise<CliRun> {
  return start(args, home, env, input).done;
}

function start(args: string[], home: string, env: Record<string, string>, input: string | null): RunningCli {
  const options = { cwd: home, env: { PATH: process.env.PATH ?? '', HOME: home, ...env } };
  const argv = [CLI_BIN, ...args];
  const child =
    input === null
      ? spawn(process.execPath, argv, { ...options, stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, argv, { ...options, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString('utf8');
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString('utf8');
  });
  if (input !== null) child.stdin?.end(input);
  const done = new Promise<CliRun>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = null;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
  return { output: () => ({ stdout, stderr }), done };
}
