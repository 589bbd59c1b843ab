// What `gatewayctl registry sync` does: read a registry list (every page of `GET {url}/v0.1/servers`,
// or one saved answer in a file), keep the active entries, latest version per name, and replace the
// snapshot file atomically. Every read is bounded: page count, bytes per page, bytes in all, time.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { request } from 'undici';
import { registryPage, selectActive, type RegistryEntry } from '../shared/mcp-registry-format.js';
import { CliFailure, EXIT, UsageError } from './errors.js';

export const SYNC_LIMITS = {
  pageSize: 100,
  maxPages: 500,
  maxPageBytes: 8 * 1024 * 1024,
  maxTotalBytes: 128 * 1024 * 1024,
  timeoutMs: 30_000,
} as const;

/** The registry could not be reached or answered with an error status: worth retrying later. */
export class RegistryUnavailable extends CliFailure {
  readonly exitCode = EXIT.unavailable;
  readonly code = 'registry_unavailable';
}

/** The registry (or file) answered something that is not a usable registry list. */
export class RegistryInvalid extends CliFailure {
  readonly exitCode = EXIT.refused;
  readonly code = 'registry_invalid';
}

export interface SyncResult {
  source: string;
  out: string;
  pages: number;
  received: number;
  kept: number;
  dropped: { invalid: number; inactive: number; older_versions: number };
}

export interface Fetched {
  raw: unknown[];
  pages: number;
}

export function isUrl(from: string): boolean {
  return /^https?:\/\//i.test(from);
}

/** `https://registry.example` or the list URL itself (`.../v0.1/servers`) both name the list. */
export function listUrl(base: string): URL {
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new UsageError(`--from: not a valid URL: ${base}`);
  }
  if (!/\/v0\.1\/servers\/?$/.test(url.pathname)) url.pathname = `${url.pathname.replace(/\/+$/, '')}/v0.1/servers`;
  url.search = '';
  url.hash = '';
  return url;
}

/** Follows `metadata.nextCursor` until a page has none. */
export async function fetchRegistry(base: string, userAgent: string): Promise<Fetched> {
  const first = listUrl(base);
  const raw: unknown[] = [];
  const seen = new Set<string>();
  let cursor: string | null = null;
  let totalBytes = 0;
  for (let pages = 1; pages <= SYNC_LIMITS.maxPages; pages += 1) {
    const url = new URL(first);
    url.searchParams.set('limit', String(SYNC_LIMITS.pageSize));
    url.searchParams.set('version', 'latest');
    if (cursor !== null) url.searchParams.set('cursor', cursor);
    const { text, bytes } = await getPage(url, userAgent);
    totalBytes += bytes;
    if (totalBytes > SYNC_LIMITS.maxTotalBytes)
      throw new RegistryInvalid(`the registry list is larger than ${SYNC_LIMITS.maxTotalBytes} bytes in all; stopped`);
    const page = parsePage(text, url.toString());
    raw.push(...page.servers);
    const next = page.metadata?.nextCursor;
    if (!next) return { raw, pages };
    if (seen.has(next)) throw new RegistryInvalid(`the registry repeated cursor ${JSON.stringify(next)}; stopped to avoid a loop`);
    seen.add(next);
    cursor = next;
  }
  throw new RegistryInvalid(`the registry list has more than ${SYNC_LIMITS.maxPages} pages; stopped`);
}

async function getPage(url: URL, userAgent: string): Promise<{ text: string; bytes: number }> {
  let res: Awaited<ReturnType<typeof request>>;
  try {
    res = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': userAgent },
      headersTimeout: SYNC_LIMITS.timeoutMs,
      bodyTimeout: SYNC_LIMITS.timeoutMs,
      signal: AbortSignal.timeout(SYNC_LIMITS.timeoutMs * 2),
    });
  } catch (err) {
    throw new RegistryUnavailable(`cannot reach the registry at ${url.origin} (${errorCode(err)})`);
  }
  if (res.statusCode !== 200) {
    await res.body.dump().catch(() => undefined);
    throw new RegistryUnavailable(`${url.toString()} answered HTTP ${res.statusCode}`);
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of res.body) {
      bytes += (chunk as Buffer).length;
      if (bytes > SYNC_LIMITS.maxPageBytes) {
        res.body.destroy();
        throw new RegistryInvalid(`${url.toString()}: a page larger than ${SYNC_LIMITS.maxPageBytes} bytes; stopped`);
      }
      chunks.push(chunk as Buffer);
    }
  } catch (err) {
    if (err instanceof CliFailure) throw err;
    throw new RegistryUnavailable(`the registry at ${url.origin} broke off an answer (${errorCode(err)})`);
  }
  return { text: Buffer.concat(chunks).toString('utf8'), bytes };
}

/** undici and the system name transport failures by code; the message is a last resort. */
function errorCode(err: unknown): string {
  if (err instanceof DOMException && err.name === 'TimeoutError') return 'timeout';
  const e = err as { code?: unknown; cause?: { code?: unknown }; message?: unknown };
  const code = e.code ?? e.cause?.code;
  if (typeof code === 'string') return code;
  return typeof e.message === 'string' ? e.message : 'unknown error';
}

function parsePage(text: string, where: string): { servers: unknown[]; metadata?: { nextCursor?: string | null } } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new RegistryInvalid(`${where}: the answer is not JSON`);
  }
  const page = registryPage.safeParse(json);
  if (!page.success) throw new RegistryInvalid(`${where}: not a registry list ({servers: [...], metadata})`);
  return page.data;
}

/** One saved answer of the list (or an earlier snapshot): the same shape as a page. */
export async function readRegistryFile(file: string): Promise<Fetched> {
  let size: number;
  try {
    size = (await fs.stat(file)).size;
  } catch (err) {
    throw new UsageError(`--from: cannot read ${file} (${errorCode(err)})`);
  }
  if (size > SYNC_LIMITS.maxTotalBytes) throw new RegistryInvalid(`${file} is larger than ${SYNC_LIMITS.maxTotalBytes} bytes`);
  const page = parsePage(await fs.readFile(file, 'utf8'), file);
  return { raw: page.servers, pages: 1 };
}

export function snapshotDocument(entries: readonly RegistryEntry[], source: string, now: Date): object {
  return {
    servers: entries,
    metadata: { count: entries.length, snapshot: { source, synced_at: now.toISOString() } },
  };
}

/** Writes beside the target and renames over it, so a reader never sees half a snapshot. */
export async function writeAtomically(file: string, text: string): Promise<void> {
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await fs.writeFile(tmp, text, { flag: 'wx', mode: 0o644 });
    await fs.rename(tmp, file);
  } catch (err) {
    await fs.rm(tmp, { force: true });
    throw new UsageError(`cannot write ${file} (${errorCode(err)})`);
  }
}

export async function syncRegistry(from: string, out: string, userAgent: string, now = new Date()): Promise<SyncResult> {
  const fetched = isUrl(from) ? await fetchRegistry(from, userAgent) : await readRegistryFile(from);
  const selection = selectActive(fetched.raw);
  if (selection.entries.length === 0) {
    throw new RegistryInvalid(`${from} holds no active entry (${fetched.raw.length} received); the snapshot was left unchanged`);
  }
  await writeAtomically(
    out,
    `${JSON.stringify(snapshotDocument(selection.entries, isUrl(from) ? listUrl(from).toString() : path.resolve(from), now), null, 2)}\n`,
  );
  return {
    source: from,
    out,
    pages: fetched.pages,
    received: fetched.raw.length,
    kept: selection.entries.length,
    dropped: { invalid: selection.invalid, inactive: selection.inactive, older_versions: selection.olderVersions },
  };
}
