// Imports point down. Every module of daemon/, shared/ and cli/ belongs to one layer; it may import
// its own layer and the layers below it in its stack, never one above. Type-only imports count too:
// a type couples the code as much as a value does. A new folder has to be given a layer here.
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
  base: ['daemon/config.ts', 'daemon/log.ts', 'daemon/ready-line.ts', 'daemon/version.ts'],
  // No I/O: the stage runner and its verdict, the detectors, redaction.
  pure: ['daemon/pipeline/', 'daemon/detectors/'],
  // PostgreSQL and what sits right on it: connections, reachability, keys, the state caches, periodic jobs.
  storage: ['daemon/db/', 'daemon/crypto/', 'daemon/state-cache/', 'daemon/workers/'],
  // The notification outbox every source writes its events to, in its own transaction (the ledger's anchoring included).
  outbox: ['daemon/notifications/'],
  // The hash-chained ledger with its counters and dead-letter queue, its anchoring, and the metrics naming them.
  ledger: ['daemon/ledger/', 'daemon/anchor/', 'daemon/metrics.ts'],
  // The tenant every request belongs to: credentials, settings, emergency stop, rate limit, admin log.
  project: ['daemon/project/'],
  // The HTTP front: server, authentication against the project's credentials, route types, respond.
  http: ['daemon/http/'],
  // What the pipelines read and write: agents, approvals, traces.
  records: ['daemon/agents/', 'daemon/approvals/', 'daemon/traces/'],
  // What app.ts hands the pipelines and the route handlers.
  deps: ['daemon/deps.ts'],
  // The governed paths: verify, the MCP gateway (client, scan, servers, rules, proxy), webhook ingest; notification
  // subscriptions and delivery, which go out through the MCP upstreams' address guard.
  gates: ['daemon/verify/', 'daemon/mcp/', 'daemon/webhooks/', 'daemon/notifications/deliver.ts', 'daemon/notifications/subscriptions.ts'],
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
  ['shared', 'base', 'pure', 'storage', 'outbox', 'ledger', 'project', 'http', 'records', 'deps', 'gates', 'views', 'api', 'app'],
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

t.test('the rule itself: down and sideways pass, up and across stacks fail', async (t) => {
  t.ok(mayImport('ledger', 'storage'));
  t.ok(mayImport('gates', 'gates'));
  t.ok(mayImport('cli', 'shared'));
  t.notOk(mayImport('storage', 'ledger'));
  t.notOk(mayImport('shared', 'base'));
  t.notOk(mayImport('cli', 'api'), 'the CLI talks to the daemon over HTTP only');
  t.notOk(mayImport('api', 'cli'));
  t.equal(layerOf('daemon/notifications/deliver.ts'), 'gates', 'the longest match wins');
  t.equal(layerOf('daemon/detectors/pii/phone.ts'), 'pure');
  t.equal(layerOf('daemon/verify/messages.ts'), 'gates');
  t.equal(layerOf('daemon/nowhere.ts'), null);
  for (const stack of STACKS) for (const layer of stack) t.ok(LAYERS[layer], `${layer} is defined`);
  t.same(
    Object.keys(LAYERS).filter((l) => !STACKS.some((s) => s.includes(l))),
    [],
    'every layer is in a stack',
  );
});
