// The MCP registry catalog behind GET /api/v1/mcp/registry: the bundled snapshot of the official
// registry (refreshed by `gatewayctl registry sync`), read once at start and never fetched live.
// Only active entries are served, the latest version of each name, as the spec's Registry items.
import fs from 'node:fs';
import type { RegistryQuery } from '../../../shared/mcp-catalog-schemas.js';
import {
  BUNDLED_SNAPSHOT,
  officialMeta,
  registryPage,
  selectActive,
  type RegistryEntry,
  type RegistryRemote,
} from '../../../shared/mcp-registry-format.js';

export interface RegistryItem {
  readonly registry_name: string;
  readonly version: string;
  readonly description: string;
  readonly remote_url: string | null;
  readonly frontable: boolean;
  readonly website_url: string | null;
  readonly registry_status: string;
  readonly registry_updated_at: string | null;
  readonly published_at: string | null;
  readonly repository_url: string | null;
}

export interface RegistryCatalog {
  /** Sorted by registry_name, one item per name. */
  readonly items: readonly RegistryItem[];
  /** Entries of the snapshot left out: malformed, not active, or an older version of a kept name. */
  readonly dropped: number;
}

export interface RegistryPage {
  items: RegistryItem[];
  next_cursor: string | null;
  total: number;
}

/** The gateway fronts MCP Streamable HTTP only; the legacy HTTP+SSE transport is listed but not frontable. */
const FRONTABLE_TRANSPORT = 'streamable-http';
const VARIABLE = /\{([^{}]*)\}/g;

export class RegistrySnapshotError extends Error {
  override name = 'RegistrySnapshotError';
}

/** Reads and maps the snapshot; a missing or malformed file stops start-up (it ships with the daemon). */
export function loadRegistryCatalog(file: string = BUNDLED_SNAPSHOT): RegistryCatalog {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    throw new RegistrySnapshotError(`registry snapshot ${file} cannot be read: ${(err as Error).message}`);
  }
  const page = registryPage.safeParse(parsed);
  if (!page.success) throw new RegistrySnapshotError(`registry snapshot ${file} is not a registry list ({servers: [...]})`);
  return buildCatalog(page.data.servers);
}

export function buildCatalog(raw: readonly unknown[]): RegistryCatalog {
  const selection = selectActive(raw);
  return { items: Object.freeze(selection.entries.map(toRegistryItem)), dropped: raw.length - selection.entries.length };
}

export function toRegistryItem(entry: RegistryEntry): RegistryItem {
  const { server } = entry;
  const meta = officialMeta(entry);
  const remote = pickRemote(server.remotes ?? []);
  return {
    registry_name: server.name,
    version: server.version,
    description: server.description ?? '',
    remote_url: remote.url,
    frontable: remote.frontable,
    website_url: server.websiteUrl ?? null,
    registry_status: meta?.status ?? 'unknown',
    registry_updated_at: meta?.updatedAt ?? null,
    published_at: meta?.publishedAt ?? null,
    repository_url: server.repository?.url ?? null,
  };
}

/**
 * The remote to show: the first frontable one (URL with its fixed variables filled in), else the
 * first Streamable HTTP template, else the first SSE one, as published.
 */
export function pickRemote(remotes: readonly RegistryRemote[]): { url: string | null; frontable: boolean } {
  for (const r of remotes) {
    if (r.type !== FRONTABLE_TRANSPORT) continue;
    const url = fillVariables(r);
    if (url !== null) return { url, frontable: true };
  }
  const shown = remotes.find((r) => r.type === FRONTABLE_TRANSPORT) ?? remotes[0];
  return { url: shown?.url ?? null, frontable: false };
}

/**
 * The remote's URL with the variables the publisher fixed (`value`) put in, or null when it is not
 * usable as is: a variable left for the user (only a `default` or `placeholder`, e.g. a tenant host),
 * or not an http(s) URL without credentials.
 */
export function fillVariables(remote: RegistryRemote): string | null {
  let unfilled = false;
  const url = remote.url.replace(VARIABLE, (whole, name: string) => {
    const value = remote.variables?.[name]?.value;
    if (typeof value === 'string' && value !== '' && !/[{}\s]/.test(value)) return value;
    unfilled = true;
    return whole;
  });
  if (unfilled || /[{}]/.test(url)) return null;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
    if (parsed.username !== '' || parsed.password !== '') return null;
  } catch {
    return null;
  }
  return url;
}

/** `q` matches names and descriptions, case-insensitively; `cursor` is the last name of the previous page. */
export function searchRegistry(catalog: RegistryCatalog, query: RegistryQuery): RegistryPage {
  const needle = query.q ? query.q.toLowerCase() : '';
  const matching = catalog.items.filter(
    (item) =>
      (query.frontable === undefined || item.frontable === query.frontable)
      && (needle === '' || item.registry_name.toLowerCase().includes(needle) || item.description.toLowerCase().includes(needle)),
  );
  const cursor = query.cursor;
  const start = cursor === undefined ? 0 : firstAfter(matching, cursor);
  const items = matching.slice(start, start + query.limit);
  const more = start + items.length < matching.length;
  return { items, next_cursor: more ? items[items.length - 1]!.registry_name : null, total: matching.length };
}

/** Index of the first item whose name sorts after `cursor` (binary search over the sorted names). */
function firstAfter(items: readonly RegistryItem[], cursor: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (items[mid]!.registry_name <= cursor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
