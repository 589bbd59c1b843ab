// Where gatewayctl keeps its connection (gateway URL and token) and how it reads and writes it.
// The file holds a secret, so it is written 0600 in a 0700 directory and never printed.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './errors.js';

export interface Connection {
  readonly url: string;
  readonly token: string;
}

export interface ConfigEnv {
  readonly GATEWAYCTL_CONFIG?: string;
  readonly XDG_CONFIG_HOME?: string;
  readonly GATEWAY_URL?: string;
  readonly GATEWAY_TOKEN?: string;
}

export function configPath(env: ConfigEnv = process.env): string {
  if (env.GATEWAYCTL_CONFIG) return path.resolve(env.GATEWAYCTL_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'gatewayctl', 'config.json');
}

/** A base URL without a trailing slash; anything but http(s) is an operator mistake. */
export function normaliseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`not a URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`the gateway URL must be http or https: ${raw}`);
  return url.href.replace(/\/+$/, '');
}

async function readSaved(file: string): Promise<Partial<Connection>> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unknown error'}`);
  }
  try {
    const parsed = JSON.parse(text) as Partial<Connection>;
    return {
      url: typeof parsed.url === 'string' ? parsed.url : undefined,
      token: typeof parsed.token === 'string' ? parsed.token : undefined,
    };
  } catch {
    throw new UsageError(`${file} is not valid JSON; run gatewayctl login again`);
  }
}

/** The saved connection with GATEWAY_URL / GATEWAY_TOKEN taking precedence, field by field. */
export async function loadConnection(env: ConfigEnv = process.env): Promise<Connection> {
  const file = configPath(env);
  const saved = env.GATEWAY_URL && env.GATEWAY_TOKEN ? {} : await readSaved(file);
  const url = env.GATEWAY_URL || saved.url;
  const token = env.GATEWAY_TOKEN || saved.token;
  if (!url || !token) {
    throw new UsageError(
      `not logged in (no ${url ? 'token' : 'gateway URL'} in ${file}): run "gatewayctl login --url URL --token TOKEN" or set GATEWAY_URL and GATEWAY_TOKEN`,
    );
  }
  return { url: normaliseUrl(url), token };
}

/**
 * Writes `text` to `file` through a fresh file created with `mode` and renamed into place, so what
 * it holds is never readable by others, not even for a moment when an older file had looser
 * permissions; the directory is created 0700 when missing.
 */
export async function writePrivateFile(file: string, text: string, mode: number): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  const handle = await fs.open(temp, 'wx', mode);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await fs.rename(temp, file);
  } catch (err) {
    await fs.rm(temp, { force: true });
    throw err;
  }
  await fs.chmod(file, mode);
}

/** Saves URL and token, 0600. */
export async function saveConnection(connection: Connection, env: ConfigEnv = process.env): Promise<string> {
  const file = configPath(env);
  await writePrivateFile(file, `${JSON.stringify({ url: connection.url, token: connection.token }, null, 2)}\n`, 0o600);
  return file;
}
