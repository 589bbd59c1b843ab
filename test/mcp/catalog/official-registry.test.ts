// The registry catalog as pure functions: mapping of the official format to Registry items,
// frontable, the active/latest selection, search (q, frontable), keyset paging and total.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { registryQuery } from '../../../shared/mcp-catalog-schemas.js';
import { BUNDLED_SNAPSHOT, OFFICIAL_META } from '../../../shared/mcp-registry-format.js';
import {
  buildCatalog,
  loadRegistryCatalog,
  RegistrySnapshotError,
  searchRegistry,
  type RegistryCatalog,
} from '../../../daemon/mcp/catalog/official-registry.js';

const ITEM_FIELDS = [
  'description',
  'frontable',
  'published_at',
  'registry_name',
  'registry_status',
  'registry_updated_at',
  'remote_url',
  'repository_url',
  'version',
  'website_url',
];

type Remote = { type: string; url: string; variables?: Record<string, { value?: string; default?: string }> };

function entry(
  name: string,
  options: {
    remotes?: Remote[];
    status?: string;
    version?: string;
    description?: string;
    isLatest?: boolean;
    publishedAt?: string;
    packages?: unknown[];
  } = {},
): unknown {
  return {
    server: {
      name,
      version: options.version ?? '1.0.0',
      description: options.description ?? `${name} server`,
      ...(options.remotes ? { remotes: options.remotes } : {}),
      ...(options.packages ? { packages: options.packages } : {}),
    },
    _meta: {
      [OFFICIAL_META]: {
        status: options.status ?? 'active',
        publishedAt: options.publishedAt ?? '2026-01-01T00:00:00Z',
        isLatest: options.isLatest ?? true,
      },
    },
  };
}

const http = (url: string, variables?: Remote['variables']): Remote => ({
  type: 'streamable-http',
  url,
  ...(variables ? { variables } : {}),
});
const query = (q: Record<string, string> = {}) => registryQuery.parse(q);

t.test('an entry maps to exactly the spec fields', async (t) => {
  const catalog = buildCatalog([
    {
      server: {
        name: 'com.example/weather',
        version: '2.1.0',
        description: 'Forecasts',
        websiteUrl: 'https://weather.example.com',
        repository: { url: 'https://git.example.org/weather', source: 'gitlab' },
        remotes: [http('https://mcp.weather.example.com/mcp')],
        packages: [{ registryType: 'npm', identifier: '@example/weather', version: '2.1.0', transport: { type: 'stdio' } }],
      },
      _meta: {
        [OFFICIAL_META]: { status: 'active', publishedAt: '2025-09-01T10:00:00Z', updatedAt: '2026-02-01T10:00:00Z', isLatest: true },
      },
    },
  ]);
  t.equal(catalog.items.length, 1);
  const item = catalog.items[0]!;
  t.same(Object.keys(item).sort(), ITEM_FIELDS);
  t.same(item, {
    registry_name: 'com.example/weather',
    version: '2.1.0',
    description: 'Forecasts',
    remote_url: 'https://mcp.weather.example.com/mcp',
    frontable: true,
    website_url: 'https://weather.example.com',
    registry_status: 'active',
    registry_updated_at: '2026-02-01T10:00:00Z',
    published_at: '2025-09-01T10:00:00Z',
    repository_url: 'https://git.example.org/weather',
  });
  const bare = buildCatalog([{ server: { name: 'com.example/bare', version: '0.1.0' }, _meta: { [OFFICIAL_META]: { status: 'active' } } }])
    .items[0]!;
  t.same(
    bare,
    {
      registry_name: 'com.example/bare',
      version: '0.1.0',
      description: '',
      remote_url: null,
      frontable: false,
      website_url: null,
      registry_status: 'active',
      registry_updated_at: null,
      published_at: null,
      repository_url: null,
    },
    'absent optional fields are null',
  );
});

t.test('frontable: an HTTP remote whose URL has no unfilled variables', async (t) => {
  const cases: [string, unknown, string | null, boolean][] = [
    ['plain streamable HTTP', { remotes: [http('https://a.example.com/mcp')] }, 'https://a.example.com/mcp', true],
    ['plain http:// is usable too', { remotes: [http('http://a.example.com/mcp')] }, 'http://a.example.com/mcp', true],
    [
      'SSE only: listed, not frontable',
      { remotes: [{ type: 'sse', url: 'https://a.example.com/sse' }] },
      'https://a.example.com/sse',
      false,
    ],
    [
      'SSE and HTTP: the HTTP remote',
      { remotes: [{ type: 'sse', url: 'https://a.example.com/sse' }, http('https://a.example.com/mcp')] },
      'https://a.example.com/mcp',
      true,
    ],
    [
      'a variable left to the user',
      { remotes: [http('https://{tenant}.example.com/mcp', { tenant: { default: 'acme' } })] },
      'https://{tenant}.example.com/mcp',
      false,
    ],
    ['a variable without a definition', { remotes: [http('https://{tenant}.example.com/mcp')] }, 'https://{tenant}.example.com/mcp', false],
    [
      'the whole base URL a variable',
      { remotes: [http('{baseUrl}/mcp', { baseUrl: { default: 'https://x.example.com' } })] },
      '{baseUrl}/mcp',
      false,
    ],
    [
      'a variable the publisher fixed',
      { remotes: [http('https://{region}.example.com/mcp', { region: { value: 'eu' } })] },
      'https://eu.example.com/mcp',
      true,
    ],
    [
      'the first usable of several',
      { remotes: [http('https://{t}.example.com/mcp'), http('https://fixed.example.com/mcp')] },
      'https://fixed.example.com/mcp',
      true,
    ],
    ['credentials in the URL', { remotes: [http('https://user:pw@a.example.com/mcp')] }, 'https://user:pw@a.example.com/mcp', false],
    ['not http(s)', { remotes: [http('ftp://a.example.com/mcp')] }, 'ftp://a.example.com/mcp', false],
    ['not a URL', { remotes: [http('https://')] }, 'https://', false],
    ['packages only', { packages: [{ registryType: 'npm', identifier: '@example/x', transport: { type: 'stdio' } }] }, null, false],
    [
      'a package speaking HTTP locally is not a remote',
      { packages: [{ registryType: 'oci', identifier: 'x', transport: { type: 'streamable-http', url: 'http://localhost:8080/mcp' } }] },
      null,
      false,
    ],
  ];
  for (const [label, options, url, frontable] of cases) {
    const item = buildCatalog([entry('com.example/x', options as Parameters<typeof entry>[1])]).items[0]!;
    t.same([item.remote_url, item.frontable], [url, frontable], label);
  }
});

t.test('only active entries are kept, the latest version of each name', async (t) => {
  const catalog = buildCatalog([
    entry('b/deprecated', { status: 'deprecated' }),
    entry('c/deleted', { status: 'deleted' }),
    { server: { name: 'd/no-meta', version: '1.0.0', description: 'no official metadata' } },
    { server: { name: 'e/broken' } },
    'not an object',
    entry('a/versions', { version: '1.0.0', isLatest: false, publishedAt: '2025-01-01T00:00:00Z' }),
    entry('a/versions', { version: '2.0.0', isLatest: true, publishedAt: '2025-06-01T00:00:00Z' }),
    entry('a/versions', { version: '1.5.0', isLatest: false, publishedAt: '2025-03-01T00:00:00Z' }),
    entry('f/no-flag', { version: '1.0.0', isLatest: false, publishedAt: '2025-01-01T00:00:00Z' }),
    entry('f/no-flag', { version: '1.1.0', isLatest: false, publishedAt: '2025-02-01T00:00:00Z' }),
    entry('z/active'),
  ]);
  t.same(
    catalog.items.map((i) => [i.registry_name, i.version]),
    [
      ['a/versions', '2.0.0'],
      ['f/no-flag', '1.1.0'],
      ['z/active', '1.0.0'],
    ],
  );
  t.equal(catalog.dropped, 8);
  t.ok(catalog.items.every((i) => i.registry_status === 'active'));
});

/** 30 entries, every third frontable, descriptions mentioning "Weather" on every fifth. */
function sample(): RegistryCatalog {
  const raw = Array.from({ length: 30 }, (_, i) => {
    const name = `io.example/srv-${String(i).padStart(2, '0')}`;
    return entry(name, {
      remotes: i % 3 === 0 ? [http(`https://s${i}.example.com/mcp`)] : [{ type: 'sse', url: `https://s${i}.example.com/sse` }],
      description: i % 5 === 0 ? `Weather tool ${i}` : `Tool ${i}`,
    });
  });
  return buildCatalog(raw.reverse());
}

t.test('search: q over name and description, any case; frontable; total counts the matches', async (t) => {
  const catalog = sample();
  t.equal(searchRegistry(catalog, query()).total, 30);
  const weather = searchRegistry(catalog, query({ q: 'WEATHER' }));
  t.same(
    weather.items.map((i) => i.registry_name),
    ['00', '05', '10', '15', '20', '25'].map((n) => `io.example/srv-${n}`),
  );
  t.equal(weather.total, 6);
  t.same(searchRegistry(catalog, query({ q: 'SRV-1' })).items.map((i) => i.registry_name).length, 10, 'names match too');
  t.equal(searchRegistry(catalog, query({ q: '  srv-29 ' })).total, 1, 'q is trimmed');
  t.equal(searchRegistry(catalog, query({ q: 'no such text' })).total, 0);
  t.equal(searchRegistry(catalog, query({ frontable: 'true' })).total, 10);
  t.ok(searchRegistry(catalog, query({ frontable: 'true' })).items.every((i) => i.frontable));
  t.equal(searchRegistry(catalog, query({ frontable: 'false' })).total, 20);
  t.equal(searchRegistry(catalog, query({ frontable: 'true', q: 'weather' })).total, 2, '00 and 15');
  const page = searchRegistry(catalog, query({ limit: '4' }));
  t.equal(page.items.length, 4);
  t.equal(page.total, 30, 'total is the match count, not the page size');
  t.equal(page.next_cursor, 'io.example/srv-03');
});

t.test('keyset paging returns every matching item exactly once, in name order', async (t) => {
  const catalog = sample();
  for (const filter of [{}, { frontable: 'true' }, { frontable: 'false' }, { q: 'weather' }] as Record<string, string>[]) {
    const expected = searchRegistry(catalog, query({ ...filter, limit: '100' })).items.map((i) => i.registry_name);
    for (const limit of [1, 3, 7, 30, 100]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let n = 0; n < 100; n += 1) {
        const page = searchRegistry(catalog, query({ ...filter, limit: String(limit), ...(cursor ? { cursor } : {}) }));
        t.equal(page.total, expected.length);
        seen.push(...page.items.map((i) => i.registry_name));
        if (page.next_cursor === null) break;
        cursor = page.next_cursor;
      }
      t.same(seen, expected, `${JSON.stringify(filter)} limit ${limit}`);
    }
  }
  const between = searchRegistry(catalog, query({ cursor: 'io.example/srv-04x', limit: '2' }));
  t.same(
    between.items.map((i) => i.registry_name),
    ['io.example/srv-05', 'io.example/srv-06'],
    'a cursor need not be an existing name',
  );
  const after = searchRegistry(catalog, query({ cursor: 'zzz' }));
  t.same([after.items, after.next_cursor, after.total], [[], null, 30]);
  const exact = searchRegistry(catalog, query({ limit: '30' }));
  t.equal(exact.next_cursor, null, 'no cursor when the page ends exactly at the last match');
});

t.test('query schema: limit default 50, max 100; frontable is true or false', async (t) => {
  t.same(registryQuery.parse({}), { limit: 50 });
  t.equal(registryQuery.parse({ limit: '100' }).limit, 100);
  for (const bad of [
    { limit: '101' },
    { limit: '0' },
    { limit: '1.5' },
    { limit: 'ten' },
    { frontable: 'yes' },
    { frontable: '' },
    { cursor: '' },
    { q: 'x'.repeat(201) },
  ]) {
    t.notOk(registryQuery.safeParse(bad).success, JSON.stringify(bad).slice(0, 40));
  }
});

t.test('the bundled snapshot: non-empty, active only, unique names, a mix of frontable and not', async (t) => {
  const catalog = loadRegistryCatalog();
  t.ok(catalog.items.length >= 30, `${catalog.items.length} entries`);
  const names = catalog.items.map((i) => i.registry_name);
  t.same(
    names,
    [...new Set(names)].sort((a, b) => (a < b ? -1 : 1)),
    'unique and sorted',
  );
  t.ok(catalog.items.every((i) => i.registry_status === 'active'));
  t.ok(catalog.items.some((i) => i.frontable) && catalog.items.some((i) => !i.frontable));
  t.ok(catalog.items.every((i) => Object.keys(i).sort().join() === ITEM_FIELDS.join()));
  const raw = JSON.parse(await fs.readFile(BUNDLED_SNAPSHOT, 'utf8'));
  t.ok(raw.servers.length > catalog.items.length, 'the file also holds entries the daemon leaves out');
});

function catchError(fn: () => unknown): unknown {
  try {
    fn();
  } catch (err) {
    return err;
  }
  return undefined;
}

t.test('a missing or malformed snapshot stops start-up with the file named', async (t) => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-registry-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  const missing = path.join(dir, 'missing.json');
  t.throws(() => loadRegistryCatalog(missing), { name: 'RegistrySnapshotError', message: /missing\.json/ });
  t.type(
    catchError(() => loadRegistryCatalog(missing)),
    RegistrySnapshotError,
  );
  const broken = path.join(dir, 'broken.json');
  await fs.writeFile(broken, '{"servers": [');
  t.throws(() => loadRegistryCatalog(broken), { message: /broken\.json/ });
  const wrong = path.join(dir, 'wrong.json');
  await fs.writeFile(wrong, '{"items": []}');
  t.throws(() => loadRegistryCatalog(wrong), { message: /not a registry list/ });
});
