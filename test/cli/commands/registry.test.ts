// gatewayctl templates list, registry search and registry sync, end to end: the compiled CLI against
// the catalog routes on a real gatewayd's HTTP front, and sync against a small registry of our own
// on a real socket, serving the official registry's list format in pages.
import fs from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { loadRegistryCatalog } from '../../../daemon/mcp/catalog/official-registry.js';
import { BUNDLED_SNAPSHOT, OFFICIAL_META } from '../../../shared/mcp-registry-format.js';
import { startCatalogServer } from '../../helpers/catalog-server.js';
import { runCli, type CliRun } from '../../helpers/cli.js';
import { listenOnLoopback } from '../../helpers/ports.js';

const catalog = await startCatalogServer(t);
const home = await fs.mkdtemp(path.join(os.tmpdir(), 'gwctl-registry-'));
t.teardown(() => fs.rm(home, { recursive: true, force: true }));

/** Nothing listens here: a command that exits 2 against it failed before sending any request. */
const NOWHERE = 'http://127.0.0.1:1';

function ctl(args: string[], env: Record<string, string> = {}): Promise<CliRun> {
  return runCli(args, home, {
    GATEWAYCTL_CONFIG: path.join(home, 'none.json'),
    GATEWAY_URL: catalog.url,
    GATEWAY_TOKEN: catalog.gw.adminToken,
    ...env,
  });
}

const names = (run: CliRun): string[] => run.json.items.map((i: { registry_name: string }) => i.registry_name);

t.test('templates list: the API body with --json, a table otherwise', async (t) => {
  const json = await ctl(['templates', 'list', '--json']);
  t.equal(json.code, 0, json.stderr);
  t.same(json.json, (await catalog.call('GET', '/api/v1/mcp/templates')).body);
  const human = await ctl(['templates', 'list']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^ID\s+NAME\s+CATEGORY\s+AUTH\s+AVAILABLE\s+DEFAULT RULES$/m);
  t.match(human.stdout, /^github\s+GitHub\s+developer_tools\s+oauth2\s+no \(auth_method_unsupported\)\s+delete_repository=DENY, /m);
});

t.test('registry search: filters reach the daemon, pages follow the cursor, --all gets everything', async (t) => {
  const all = loadRegistryCatalog().items;
  const first = await ctl(['registry', 'search', '--limit', '5', '--json']);
  t.equal(first.code, 0, first.stderr);
  t.same(first.json, (await catalog.call('GET', '/api/v1/mcp/registry?limit=5')).body);
  t.same(
    names(first),
    all.slice(0, 5).map((i) => i.registry_name),
  );
  const next = await ctl(['registry', 'search', '--limit', '5', '--cursor', first.json.next_cursor, '--json']);
  t.same(
    names(next),
    all.slice(5, 10).map((i) => i.registry_name),
  );

  const everything = await ctl(['registry', 'search', '--all', '--limit', '4', '--json']);
  t.equal(everything.code, 0, everything.stderr);
  t.same(
    names(everything),
    all.map((i) => i.registry_name),
    'every item once, in order',
  );
  t.same([everything.json.next_cursor, everything.json.total], [null, all.length]);

  const frontable = await ctl(['registry', 'search', '--frontable', '--all', '--json']);
  t.same(
    names(frontable),
    all.filter((i) => i.frontable).map((i) => i.registry_name),
  );
  const not = await ctl(['registry', 'search', '--no-frontable', '--all', '--json']);
  t.same(
    names(not),
    all.filter((i) => !i.frontable).map((i) => i.registry_name),
  );
  const q = await ctl(['registry', 'search', '--q', 'WEATHER', '--json']);
  t.same(q.json, (await catalog.call('GET', '/api/v1/mcp/registry?q=weather')).body);

  const human = await ctl(['registry', 'search', '--limit', '3']);
  t.equal(human.code, 0, human.stderr);
  t.match(human.stdout, /^NAME\s+VERSION\s+FRONTABLE\s+REMOTE\s+DESCRIPTION$/m);
  t.match(human.stdout, new RegExp(`^3 shown of ${all.length} matching\\.$`, 'm'));
  t.equal(human.stderr, `More entries: --cursor ${all[2]!.registry_name}\n`);
  t.equal((await ctl(['registry', 'search', '--q', 'no such server anywhere'])).stdout, 'No registry entries match.\n');

  for (const [args, flag] of [
    [['--limit', '0'], /--limit/],
    [['--limit', '101'], /--limit/],
    [['--cursor', ''], /--cursor/],
  ] as [string[], RegExp][]) {
    const run = await ctl(['registry', 'search', ...args, '--json'], { GATEWAY_URL: NOWHERE });
    t.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    t.match(run.json, { error: { code: 'usage_error', message: flag } });
  }
});

function entry(name: string, status = 'active', version = '1.0.0', isLatest = true): unknown {
  return {
    server: {
      name,
      version,
      description: `${name} (${status})`,
      remotes: [{ type: 'streamable-http', url: `https://${name.split('/')[1]}.example.com/mcp` }],
    },
    _meta: { [OFFICIAL_META]: { status, publishedAt: '2026-01-01T00:00:00Z', isLatest } },
  };
}

interface FakeRegistry {
  url: string;
  requests: URL[];
}

/** Answers GET /v0.1/servers from `pages`: page n is served for cursor `c{n}`, and links to the next. */
async function fakeRegistry(
  t: Test,
  pages: unknown[][],
  answer?: (req: http.IncomingMessage, res: http.ServerResponse) => boolean,
): Promise<FakeRegistry> {
  const requests: URL[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://registry');
    requests.push(url);
    if (answer?.(req, res)) return;
    if (url.pathname !== '/v0.1/servers') {
      res.writeHead(404).end('{"error":"not found"}');
      return;
    }
    const cursor = url.searchParams.get('cursor');
    const n = cursor === null ? 0 : Number(cursor.slice(1));
    const servers = pages[n] ?? [];
    const metadata = n + 1 < pages.length ? { nextCursor: `c${n + 1}`, count: servers.length } : { count: servers.length };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ servers, metadata }));
  });
  const port = await listenOnLoopback(t, server);
  return { url: `http://127.0.0.1:${port}`, requests };
}

async function tempDir(t: Test): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-sync-'));
  t.teardown(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}

t.test('registry sync --from URL: every page, active entries only, latest version, written atomically', async (t) => {
  const registry = await fakeRegistry(t, [
    [entry('com.example/zeta'), entry('com.example/alpha', 'active', '1.0.0', false), entry('com.example/gone', 'deleted')],
    [entry('com.example/alpha', 'active', '2.0.0'), entry('com.example/old', 'deprecated'), { server: { name: 'broken' } }],
  ]);
  const dir = await tempDir(t);
  const out = path.join(dir, 'snapshot.json');
  await fs.writeFile(out, '{"servers": []}');
  const run = await ctl(['registry', 'sync', '--from', `${registry.url}/`, '--out', out, '--json'], { GATEWAY_URL: NOWHERE });
  t.equal(run.code, 0, run.stderr);
  t.same(run.json, {
    source: `${registry.url}/`,
    out,
    pages: 2,
    received: 6,
    kept: 2,
    dropped: { invalid: 1, inactive: 2, older_versions: 1 },
  });
  t.same(
    registry.requests.map((u) => [u.pathname, u.searchParams.get('cursor'), u.searchParams.get('limit')]),
    [
      ['/v0.1/servers', null, '100'],
      ['/v0.1/servers', 'c1', '100'],
    ],
  );
  const written = JSON.parse(await fs.readFile(out, 'utf8'));
  t.same(
    written.servers.map((e: { server: { name: string; version: string } }) => [e.server.name, e.server.version]),
    [
      ['com.example/alpha', '2.0.0'],
      ['com.example/zeta', '1.0.0'],
    ],
  );
  t.equal(written.metadata.count, 2);
  t.equal(written.metadata.snapshot.source, `${registry.url}/v0.1/servers`);
  t.same((await fs.readdir(dir)).sort(), ['snapshot.json'], 'no temporary file is left behind');
  t.same(
    loadRegistryCatalog(out).items.map((i) => [i.registry_name, i.frontable]),
    [
      ['com.example/alpha', true],
      ['com.example/zeta', true],
    ],
    'the daemon reads what sync wrote',
  );

  const human = await ctl(['registry', 'sync', '--from', `${registry.url}/v0.1/servers`, '--out', out]);
  t.equal(human.code, 0, human.stderr);
  t.equal(
    human.stdout,
    `Wrote 2 active entries to ${out} (6 received in 2 pages; left out 2 not active, 1 older versions, 1 malformed).\n`,
  );
  t.equal(human.stderr, 'Restart gatewayd to serve the new snapshot.\n');
});

t.test('registry sync --from FILE: the same format, e.g. the bundled snapshot itself', async (t) => {
  const dir = await tempDir(t);
  const out = path.join(dir, 'copy.json');
  const source = path.join(dir, 'servers.json');
  await fs.writeFile(
    source,
    JSON.stringify({
      servers: [entry('com.example/b'), entry('com.example/a'), entry('com.example/c', 'deprecated')],
      metadata: { count: 3 },
    }),
  );
  const run = await ctl(['registry', 'sync', '--from', source, '--out', out, '--json']);
  t.equal(run.code, 0, run.stderr);
  t.match(run.json, { pages: 1, received: 3, kept: 2, dropped: { inactive: 1 } });
  t.same(
    loadRegistryCatalog(out).items.map((i) => i.registry_name),
    ['com.example/a', 'com.example/b'],
  );

  const bundled = loadRegistryCatalog();
  const again = await ctl(['registry', 'sync', '--from', BUNDLED_SNAPSHOT, '--out', out, '--json']);
  t.equal(again.code, 0, again.stderr);
  t.same(loadRegistryCatalog(out).items, bundled.items, 'a synced copy of the bundled snapshot serves the same items');
});

t.test('registry sync refusals: the snapshot is left as it was', async (t) => {
  const dir = await tempDir(t);
  const out = path.join(dir, 'snapshot.json');
  const original = '{"servers": [], "metadata": {"note": "untouched"}}';
  await fs.writeFile(out, original);
  const sync = (from: string) => ctl(['registry', 'sync', '--from', from, '--out', out, '--json']);

  const inactive = await fakeRegistry(t, [[entry('com.example/a', 'deprecated')]]);
  const none = await sync(inactive.url);
  t.equal(none.code, 1);
  t.match(none.json, { error: { code: 'registry_invalid', message: /no active entry/ } });

  const looping = await fakeRegistry(t, [[entry('com.example/a')]], (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ servers: [], metadata: { nextCursor: 'same' } }));
    return true;
  });
  t.match((await sync(looping.url)).json, { error: { code: 'registry_invalid', message: /repeated cursor/ } });
  t.equal(looping.requests.length, 2, 'stopped at the first repeat');

  const failing = await fakeRegistry(t, [], (_req, res) => {
    res.writeHead(503).end('busy');
    return true;
  });
  const down = await sync(failing.url);
  t.equal(down.code, 3);
  t.match(down.json, { error: { code: 'registry_unavailable', message: /HTTP 503/ } });

  const garbage = await fakeRegistry(t, [], (_req, res) => {
    res.writeHead(200).end('<html>');
    return true;
  });
  t.match((await sync(garbage.url)).json, { error: { code: 'registry_invalid', message: /not JSON/ } });
  const wrongShape = await fakeRegistry(t, [], (_req, res) => {
    res.writeHead(200).end('{"items": []}');
    return true;
  });
  t.match((await sync(wrongShape.url)).json, { error: { code: 'registry_invalid', message: /not a registry list/ } });

  const huge = await fakeRegistry(t, [], (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(1024 * 1024, 0x20);
    let sent = 0;
    const more = (): void => {
      while (sent < 12 && !res.destroyed) {
        sent += 1;
        if (!res.write(chunk)) {
          res.once('drain', more);
          return;
        }
      }
      res.end();
    };
    more();
    return true;
  });
  t.match((await sync(huge.url)).json, { error: { code: 'registry_invalid', message: /larger than 8388608 bytes/ } });

  const unreachable = await sync(NOWHERE);
  t.equal(unreachable.code, 3);
  t.match(unreachable.json, { error: { code: 'registry_unavailable', message: /ECONNREFUSED/ } });

  const missing = await sync(path.join(dir, 'no-such-file.json'));
  t.equal(missing.code, 2);
  t.match(missing.json, { error: { code: 'usage_error', message: /ENOENT/ } });
  t.equal((await ctl(['registry', 'sync', '--out', out])).code, 2, '--from is required');

  t.equal(await fs.readFile(out, 'utf8'), original);
  t.same(await fs.readdir(dir), ['snapshot.json'], 'no temporary file is left behind');
});
