// The official MCP registry's list format (`GET /v0.1/servers`: `{servers: [{server, _meta}], metadata}`):
// what the bundled snapshot holds, what the daemon reads at start and what `gatewayctl registry sync`
// fetches. Schemas are loose on purpose: fields we do not read (packages, headers, icons) pass through.
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The key under `_meta` where the official registry puts its own lifecycle data. */
export const OFFICIAL_META = 'io.modelcontextprotocol.registry/official';

/** The snapshot the daemon serves; a source file of the repository, never under dist/. */
export const BUNDLED_SNAPSHOT = fileURLToPath(new URL('../../daemon/mcp/catalog/registry-snapshot.json', import.meta.url));

const remote = z.looseObject({
  type: z.string(),
  url: z.string().max(2000),
  variables: z.record(z.string(), z.looseObject({ value: z.string().optional() })).optional(),
});
export type RegistryRemote = z.infer<typeof remote>;

const server = z.looseObject({
  name: z.string().min(1).max(200),
  description: z.string().max(2000).optional(),
  version: z.string().min(1).max(255),
  websiteUrl: z.string().max(2000).optional(),
  repository: z.looseObject({ url: z.string().max(2000).optional() }).optional(),
  remotes: z.array(remote).max(50).optional(),
});

const official = z.looseObject({
  status: z.string(),
  publishedAt: z.string().optional(),
  updatedAt: z.string().optional(),
  isLatest: z.boolean().optional(),
});

export const registryEntry = z.looseObject({
  server,
  _meta: z.looseObject({ [OFFICIAL_META]: official.optional() }).optional(),
});
export type RegistryEntry = z.infer<typeof registryEntry>;

/** One answer of `GET /v0.1/servers`, and the shape of a snapshot file. */
export const registryPage = z.looseObject({
  servers: z.array(z.unknown()),
  metadata: z.looseObject({ nextCursor: z.string().nullable().optional(), count: z.number().optional() }).optional(),
});

export function officialMeta(entry: RegistryEntry): z.infer<typeof official> | undefined {
  return entry._meta?.[OFFICIAL_META];
}

/** An entry without the official lifecycle data cannot be shown to be active, so it counts as inactive. */
export function isActive(entry: RegistryEntry): boolean {
  return officialMeta(entry)?.status === 'active';
}

export interface Selection {
  /** Active entries, the latest version of each name, sorted by name (code-unit order, as keyset paging compares). */
  readonly entries: RegistryEntry[];
  readonly invalid: number;
  readonly inactive: number;
  readonly olderVersions: number;
}

/** Keeps what the gateway serves: valid, active entries, one per name (the registry lists every version). */
export function selectActive(raw: readonly unknown[]): Selection {
  let invalid = 0;
  let inactive = 0;
  const byName = new Map<string, RegistryEntry>();
  for (const item of raw) {
    const parsed = registryEntry.safeParse(item);
    if (!parsed.success) {
      invalid += 1;
      continue;
    }
    if (!isActive(parsed.data)) {
      inactive += 1;
      continue;
    }
    const known = byName.get(parsed.data.server.name);
    if (!known || newer(parsed.data, known)) byName.set(parsed.data.server.name, parsed.data);
  }
  const entries = [...byName.values()].sort((a, b) => (a.server.name < b.server.name ? -1 : a.server.name > b.server.name ? 1 : 0));
  return { entries, invalid, inactive, olderVersions: raw.length - invalid - inactive - entries.length };
}

/** The registry's own isLatest flag first, then the later publication. */
function newer(a: RegistryEntry, b: RegistryEntry): boolean {
  const ma = officialMeta(a);
  const mb = officialMeta(b);
  if (Boolean(ma?.isLatest) !== Boolean(mb?.isLatest)) return Boolean(ma?.isLatest);
  return (Date.parse(ma?.publishedAt ?? '') || 0) > (Date.parse(mb?.publishedAt ?? '') || 0);
}
