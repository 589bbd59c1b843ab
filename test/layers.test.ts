// Imports point down. Every module of daemon/, shared/ and cli/ belongs to one layer, and every folder
// to exactly one; a module may import its own layer and the layers below it in its stack, never one
// above. Type-only imports count too: a type couples the code as much as a value does. A new folder
// has to be given a layer here. Within a layer, no two folders import each other and no files form a
// cycle: a cycle is two modules that can only be understood together.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import ts from 'typescript';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** What each layer holds: folders (ending in /) and files; the longest match wins. */
const LAYERS: Readonly<Record<string, readonly string[]>> = {
  // The wire contract: error table, body schemas, canonical JSON, roles and principals (daemon and CLI).
  shared: ['shared/'],
  // Read once at start: configuration and the root logger.
  base: [
    'daemon/config.ts',
    'daemon/config-identity.ts',
    'daemon/config-console.ts',
    'daemon/config-approvals.ts',
    'daemon/config-values.ts',
    'daemon/config-anchor.ts',
    'daemon/log.ts',
    'daemon/ready-line.ts',
    'daemon/version.ts',
  ],
  // Worker threads: a pool that runs jobs off the daemon's thread, each with a deadline.
  threads: ['daemon/threads/'],
  // No I/O: the stage runner and its verdict, the detectors, redaction.
  pure: ['daemon/pipeline/', 'daemon/detectors/'],
  // Model files read at start: the optional ONNX classifier (its runtime and tokenizer, loaded from disk).
  models: ['daemon/models/'],
  // PostgreSQL and what sits right on it: connections, reachability, keys, the state caches, periodic jobs.
  storage: ['daemon/db/', 'daemon/crypto/', 'daemon/state-cache/', 'daemon/workers/'],
  // The notification outbox every source writes its events to, in its own transaction (the ledger's anchoring included).
  outbox: ['daemon/notifications/'],
  // The hash-chained ledger with its counters and dead-letter queue, its anchoring, and the metrics naming them.
  ledger: ['daemon/ledger/', 'daemon/anchor/', 'daemon/metrics.ts'],
  // The tenant every request belongs to: credentials, settings, emergency stop, rate limit, admin log.
  project: ['daemon/project/'],
  // The HTTP front: server, authentication against the project's credentials, route types, respond.
  identity: ['daemon/identity/'],
  http: ['daemon/http/'],
  // What the pipelines read and write: agents, approvals, traces.
  records: ['daemon/agents/', 'daemon/approvals/', 'daemon/traces/'],
  // What app.ts hands the pipelines and the route handlers.
  deps: ['daemon/deps.ts'],
  // The governed paths: verify, the MCP gateway (client, scan, servers, rules, proxy), webhook ingest; notification
  // subscriptions and their delivery, which go out through the MCP upstreams' address guard.
  gates: ['daemon/verify/', 'daemon/mcp/', 'daemon/webhooks/', 'daemon/delivery/'],
  // Read models over everything below: the command center.
  views: ['daemon/command-center/'],
  // The route table and its thin handlers.
  api: ['daemon/api/'],
  // Boot: wires everything together.
  app: ['daemon/app.ts', 'daemon/main.ts'],
  // gatewayctl: talks to the daemon over HTTP only.
  cli: ['cli/'],
};

/** Lowest first. The daemon is one stack; the CLI stands on shared/ alone and never imports the daemon. */
const STACKS: readonly (readonly string[])[] = [
  [
    'shared',
    'base',
    'threads',
    'pure',
    'models',
    'storage',
    'outbox',
    'ledger',
    'project',
    'identity',
    'http',
    'records',
    'deps',
    'gates',
    'views',
    'api',
    'app',
  ],
  ['shared', 'cli'],
];

function layerOf(file: string): string | null {
  let best: { layer: string; length: number } | null = null;
  for (const [layer, holds] of Object.entries(LAYERS)) {
    for (const prefix of holds) {
      const fits = prefix.endsWith('/') ? file.startsWith(prefix) : file === prefix;
      if (fits && (!best || prefix.length > best.length)) best = { layer, length: prefix.length };
    }
  }
  return best?.layer ?? null;
}

/** True when a module of layer `from` may import one of layer `to`. */
function mayImport(from: string, to: string): boolean {
  return STACKS.some((stack) => stack.includes(from) && stack.includes(to) && stack.indexOf(to) <= stack.indexOf(from));
}

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sources(rel));
    else if (entry.name.endsWith('.ts')) out.push(rel);
  }
  return out;
}

/** The repository-relative files a module imports (static, dynamic, `import type`, `export ... from`). */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => path.posix.join(path.posix.dirname(file), spec).replace(/\.js$/, '.ts'));
}

interface Upward {
  readonly from: string;
  readonly to: string;
  readonly line: string;
}

function upwardImports(files: readonly string[]): { upward: Upward[]; unplaced: string[]; edges: number } {
  const upward: Upward[] = [];
  const unplaced = new Set<string>();
  let edges = 0;
  for (const file of files) {
    const from = layerOf(file);
    if (!from) {
      unplaced.add(file);
      continue;
    }
    for (const target of importsOf(file)) {
      const to = layerOf(target);
      if (!to) {
        unplaced.add(target);
        continue;
      }
      edges += 1;
      if (!mayImport(from, to)) upward.push({ from: file, to: target, line: `${file} (${from}) imports ${target} (${to})` });
    }
  }
  return { upward, unplaced: [...unplaced].sort(), edges };
}

const files = ['daemon', 'shared', 'cli'].flatMap(sources);

/** The import graph between the given modules. */
function graphOf(modules: readonly string[]): Map<string, Set<string>> {
  const known = new Set(modules);
  return new Map(modules.map((file) => [file, new Set(importsOf(file).filter((target) => known.has(target)))]));
}

/** The strongly connected parts of a graph with more than one node (Tarjan's algorithm): its cycles. */
function cyclesOf(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      part.push(top);
    } while (top !== node);
    if (part.length > 1) cycles.push(part.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return cycles.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The unit a module belongs to for the folder rule: daemon/<folder>/ or a file at daemon/'s top; shared/; cli/. */
function unitOf(file: string): string {
  const parts = file.split('/');
  if (parts[0] !== 'daemon') return `${parts[0]}/`;
  return parts.length > 2 ? `daemon/${parts[1]}/` : file;
}

/** The graph between units, from the graph between files. */
function unitGraph(graph: ReadonlyMap<string, ReadonlySet<string>>): Map<string, Set<string>> {
  const units = new Map<string, Set<string>>();
  for (const [from, targets] of graph) {
    const edges = units.get(unitOf(from)) ?? units.set(unitOf(from), new Set()).get(unitOf(from))!;
    for (const to of targets) if (unitOf(to) !== unitOf(from)) edges.add(unitOf(to));
  }
  return units;
}

t.test('no module imports from a layer above its own', async (t) => {
  const { upward, unplaced, edges } = upwardImports(files);
  t.ok(edges > 500, `${edges} imports between modules read`);
  t.same(unplaced, [], 'every module belongs to a layer');
  t.same(
    upward.map((u) => u.line),
    [],
    'upward imports',
  );
});

t.test('every folder belongs to exactly one layer', async (t) => {
  const layersOfFolder = new Map<string, Set<string>>();
  // daemon/'s own top-level files (boot, configuration, the logger, deps) are placed one by one.
  for (const file of files.filter((f) => path.posix.dirname(f) !== 'daemon')) {
    const folder = path.posix.dirname(file);
    (layersOfFolder.get(folder) ?? layersOfFolder.set(folder, new Set()).get(folder)!).add(layerOf(file) ?? 'none');
  }
  t.same(
    [...layersOfFolder].filter(([, layers]) => layers.size > 1).map(([folder, layers]) => `${folder}: ${[...layers].join(', ')}`),
    [],
    'folders split between layers',
  );
});

t.test('no two folders import each other, and no files form a cycle', async (t) => {
  const graph = graphOf(files);
  t.same(cyclesOf(unitGraph(graph)), [], 'cycles between folders (daemon/<folder>/, shared/, cli/)');
  t.same(cyclesOf(graph), [], 'cycles between files');
});

t.test('the cycle finder finds a cycle and only a cycle', async (t) => {
  const g = (edges: Record<string, string[]>) => new Map(Object.entries(edges).map(([k, v]) => [k, new Set(v)]));
  t.same(cyclesOf(g({ a: ['b'], b: ['c'], c: ['a'], d: ['a'] })), [['a', 'b', 'c']]);
  t.same(cyclesOf(g({ a: ['b'], b: ['c'], c: [], d: ['a', 'c'] })), []);
  t.same(
    cyclesOf(unitGraph(g({ 'daemon/x/a.ts': ['daemon/y/b.ts'], 'daemon/y/b.ts': ['daemon/x/c.ts'], 'daemon/x/c.ts': [] }))),
    [['daemon/x/', 'daemon/y/']],
    'folders import each other though their files form no cycle',
  );
  t.equal(unitOf('daemon/mcp/proxy/load.ts'), 'daemon/mcp/');
  t.equal(unitOf('daemon/deps.ts'), 'daemon/deps.ts');
  t.equal(unitOf('cli/commands/x.ts'), 'cli/');
});

t.test('the rule itself: down and sideways pass, up and across stacks fail', async (t) => {
  t.ok(mayImport('ledger', 'storage'));
  t.ok(mayImport('gates', 'gates'));
  t.ok(mayImport('cli', 'shared'));
  t.notOk(mayImport('storage', 'ledger'));
  t.notOk(mayImport('shared', 'base'));
  t.notOk(mayImport('cli', 'api'), 'the CLI talks to the daemon over HTTP only');
  t.notOk(mayImport('api', 'cli'));
  t.equal(layerOf('daemon/delivery/deliver.ts'), 'gates');
  t.equal(layerOf('daemon/detectors/pii/phone.ts'), 'pure');
  t.equal(layerOf('daemon/models/onnx-classifier.ts'), 'models');
  t.equal(layerOf('daemon/verify/messages.ts'), 'gates');
  t.equal(layerOf('daemon/nowhere.ts'), null);
  for (const stack of STACKS) for (const layer of stack) t.ok(LAYERS[layer], `${layer} is defined`);
  t.same(
    Object.keys(LAYERS).filter((l) => !STACKS.some((s) => s.includes(l))),
    [],
    'every layer is in a stack',
  );
});

/**
 * Modules of the pure layer that do I/O: an import of the file system, processes, sockets, HTTP,
 * threads or the database. From node:net only the address checks (isIP, isIPv4, isIPv6) are
 * functions of their argument; node:module's createRequire loads code, as an import does.
 */
function pureIo(modules: readonly string[], read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8')): string[] {
  const IO =
    /^(?:node:)?(?:fs|fs\/promises|child_process|http|https|http2|dgram|dns|dns\/promises|worker_threads|cluster|readline|tls)$|^(?:undici|postgres)$/;
  const out: string[] = [];
  for (const file of modules.filter((f) => layerOf(f) === 'pure')) {
    const text = read(file);
    for (const spec of ts.preProcessFile(text, true, true).importedFiles.map((f) => f.fileName)) {
      if (IO.test(spec)) out.push(`${file} imports ${spec}`);
      if (spec === 'node:net' || spec === 'net') {
        const named = [...text.matchAll(/import\s*\{([^}]*)\}\s*from\s*'(?:node:)?net'/g)].flatMap((m) => m[1]!.split(','));
        const other = named.map((n) => n.trim()).filter((n) => n !== '' && !/^isIP(?:v4|v6)?$/.test(n));
        if (other.length > 0 || named.length === 0) out.push(`${file} imports ${spec} beyond isIP`);
      }
    }
  }
  return out;
}

t.test('the pure layer does no I/O: weights and models are read by the module loader or the models layer', async (t) => {
  t.same(pureIo(files), []);
  t.same(pureIo(['daemon/models/onnx-classifier.ts']), [], 'a models module is not checked');
  const sources: Record<string, string> = {
    'daemon/detectors/a.ts': "import fs from 'node:fs';",
    'daemon/detectors/b.ts': "import { isIPv4, isIPv6 } from 'node:net';",
    'daemon/detectors/c.ts': "import { connect } from 'node:net';",
    'daemon/pipeline/d.ts': "const undici = await import('undici');",
  };
  t.same(
    pureIo(Object.keys(sources), (f) => sources[f]!),
    ['daemon/detectors/a.ts imports node:fs', 'daemon/detectors/c.ts imports node:net beyond isIP', 'daemon/pipeline/d.ts imports undici'],
    'the check finds a file read, a socket and an HTTP client, and lets the address checks pass',
  );
});
