// Reads a secret (an upstream token, a header value) from a file or from stdin, never from the
// command line, so that it lands in no shell history. Errors name the flag, never the content
// and never the path: a path typed by mistake may itself be the secret.
import fs from 'node:fs/promises';
import { UsageError } from './errors.js';

/** Well above any value the daemon accepts (8192 characters); a larger input is a wrong file. */
const MAX_BYTES = 64 * 1024;

/** Where a secret comes from: a file path, or `-` for stdin. */
export interface SecretSource {
  readonly flag: string;
  readonly from: string;
}

/** The secret with surrounding whitespace (a trailing newline) removed; empty is an operator mistake. */
export async function readSecret(source: SecretSource): Promise<string> {
  const raw = source.from === '-' ? await readStdin(source.flag) : await readFile(source.flag, source.from);
  const value = raw.trim();
  if (value === '') throw new UsageError(`${source.flag}: the ${source.from === '-' ? 'input on stdin' : 'file'} is empty`);
  return value;
}

async function readFile(flag: string, file: string): Promise<string> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    throw new UsageError(`${flag}: cannot open the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UsageError(`${flag}: not a regular file`);
    if (stat.size > MAX_BYTES) throw new UsageError(`${flag}: the file is larger than ${MAX_BYTES} bytes`);
    return await handle.readFile('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`${flag}: cannot read the file (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  } finally {
    await handle.close();
  }
}

async function readStdin(flag: string): Promise<string> {
  if (process.stdin.isTTY) throw new UsageError(`${flag} - reads from stdin, but stdin is a terminal; pipe the secret in or use a file`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += (chunk as Buffer).length;
    if (size > MAX_BYTES) throw new UsageError(`${flag}: more than ${MAX_BYTES} bytes on stdin`);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
