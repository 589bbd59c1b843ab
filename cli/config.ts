// Where gatewayctl keeps its connections (gateway URL and token, by context name) and how it reads
// and writes them. The file holds secrets, so it is written 0600 in a 0700 directory and never
// printed. Its shape: {"current": NAME, "contexts": {NAME: {"url", "token", "oidc"?}}}; the first shape,
// {"url", "token"}, still reads, as the one context "default". GATEWAYCTL_CONTEXT picks a context
// for one command; GATEWAY_URL and GATEWAY_TOKEN, both set, replace the file altogether.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './errors.js';

export interface Connection {
  readonly url: string;
  /** A gateway API key, or the access token of a sign-in with the identity provider (`oidc`). */
  readonly token: string;
  /** Set by `login --oidc`: how the access token is refreshed (cli/oidc-tokens.ts). */
  readonly oidc?: OidcSignIn;
  /** The saved context it was read from (not stored): where refreshed tokens are written back. */
  readonly context?: string;
}

/** A sign-in with the gateway's identity provider (RFC 8628 device grant), as saved beside its access token. */
export interface OidcSignIn {
  readonly issuer: string;
  readonly client_id: string;
  readonly token_endpoint: string;
  /** The gateway's resource identifier (RFC 8707), asked for again on every refresh. */
  readonly resource: string;
  readonly refresh_token: string | null;
  /** When the access token expires (seconds since the epoch); null: unknown, refreshed on a 401 only. */
  readonly expires_at: number | null;
}

export interface ConfigEnv {
  readonly GATEWAYCTL_CONFIG?: string;
  readonly GATEWAYCTL_CONTEXT?: string;
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

/** Every saved connection by context name, and the one commands use. */
export interface SavedConfig {
  readonly current: string | null;
  readonly contexts: Readonly<Record<string, Connection>>;
}

export const CONTEXT_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
export const DEFAULT_CONTEXT = 'default';

const isConnection = (v: unknown): v is Connection =>
  typeof v === 'object' && v !== null && typeof (v as Connection).url === 'string' && typeof (v as Connection).token === 'string';

export async function readConfig(file: string): Promise<SavedConfig> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { current: null, contexts: {} };
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unknown error'}`);
  }
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new UsageError(`${file} is not valid JSON; run gatewayctl login again`);
  }
  if (isConnection(parsed)) return { current: DEFAULT_CONTEXT, contexts: { [DEFAULT_CONTEXT]: { url: parsed.url, token: parsed.token } } };
  const raw = typeof parsed.contexts === 'object' && parsed.contexts !== null ? (parsed.contexts as Record<string, unknown>) : {};
  const contexts = Object.fromEntries(Object.entries(raw).filter((e): e is [string, Connection] => isConnection(e[1])));
  const current = typeof parsed.current === 'string' && parsed.current in contexts ? parsed.current : null;
  return { current, contexts };
}

export async function writeConfig(file: string, config: SavedConfig): Promise<void> {
  await writePrivateFile(file, `${JSON.stringify({ current: config.current, contexts: config.contexts }, null, 2)}\n`, 0o600);
}

/** The connection commands use: GATEWAY_URL and GATEWAY_TOKEN when both are set, else the context's (GATEWAYCTL_CONTEXT, else the current one). */
export async function loadConnection(env: ConfigEnv = process.env): Promise<Connection> {
  const file = configPath(env);
  if (env.GATEWAY_URL && env.GATEWAY_TOKEN) return { url: normaliseUrl(env.GATEWAY_URL), token: env.GATEWAY_TOKEN };
  const saved = await readConfig(file);
  const name = env.GATEWAYCTL_CONTEXT || saved.current;
  const picked = name ? saved.contexts[name] : undefined;
  if (env.GATEWAYCTL_CONTEXT && !picked)
    throw new UsageError(`no context "${env.GATEWAYCTL_CONTEXT}" in ${file} (gatewayctl context list)`);
  const url = env.GATEWAY_URL || picked?.url;
  const token = env.GATEWAY_TOKEN || picked?.token;
  if (!url || !token) {
    throw new UsageError(
      `not logged in (no ${url ? 'token' : 'gateway URL'} in ${file}): run "gatewayctl login --url URL --token TOKEN" or set GATEWAY_URL and GATEWAY_TOKEN`,
    );
  }
  const fromFile = !env.GATEWAY_URL && !env.GATEWAY_TOKEN && name ? { context: name, ...(picked?.oidc ? { oidc: picked.oidc } : {}) } : {};
  return { url: normaliseUrl(url), token, ...fromFile };
}

/** The name of the context commands use now, or null. */
export async function currentContext(env: ConfigEnv = process.env): Promise<string | null> {
  if (env.GATEWAY_URL && env.GATEWAY_TOKEN) return null;
  return env.GATEWAYCTL_CONTEXT || (await readConfig(configPath(env))).current;
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

/**
 * Saves URL and token, 0600, as context `name` (default: the current one, else "default"); it
 * becomes the current context unless `makeCurrent` is false and another one is current.
 */
export async function saveConnection(
  connection: Connection,
  env: ConfigEnv = process.env,
  name?: string,
  makeCurrent = true,
): Promise<string> {
  const file = configPath(env);
  const saved = await readConfig(file);
  const context = name ?? saved.current ?? DEFAULT_CONTEXT;
  const contexts = { ...saved.contexts, [context]: stored(connection) };
  await writeConfig(file, { current: makeCurrent || saved.current === null ? context : saved.current, contexts });
  return file;
}

/** What a context stores of a connection (never where it was read from). */
function stored(c: Connection): Connection {
  return c.oidc ? { url: c.url, token: c.token, oidc: c.oidc } : { url: c.url, token: c.token };
}

/** Writes refreshed tokens back to the context they were read from, unless it has changed meanwhile (another login). */
export async function updateSignIn(
  context: string,
  before: Connection,
  token: string,
  oidc: OidcSignIn,
  env: ConfigEnv = process.env,
): Promise<void> {
  const file = configPath(env);
  const saved = await readConfig(file);
  const now = saved.contexts[context];
  if (!now || now.url !== before.url || now.token !== before.token) return;
  await writeConfig(file, { current: saved.current, contexts: { ...saved.contexts, [context]: stored({ url: now.url, token, oidc }) } });
}
