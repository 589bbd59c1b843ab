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
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export function runCli(args: string[], home: string, env: Record<string, string>): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI_BIN, ...args], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '', HOME: home, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString('utf8'); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString('utf8'); });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      let json: unknown = null;
      try { json = JSON.parse(stdout); } catch { json = null; }
      resolve({ code, stdout, stderr, json });
    });
  });
}
