// Tests mirror the source tree, so the test of a module is found from its path: test/<p>.test.ts
// tests daemon/<p>.ts (or the folder daemon/<p>/), except that test/cli/ mirrors cli/,
// test/shared/ mirrors shared/ and test/console/ mirrors console/ (the web console's page, run in a browser). Several test files about one module are named <module>.<aspect>.test.ts
// so they sort beside it. helpers/, bench/, fixtures/ and corpus/ hold no module tests.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t from 'tap';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Folders under test/ that support the tests rather than test a module. */
const SUPPORT = new Set(['helpers', 'bench', 'fixtures', 'corpus', 'vectors']);

/** Tests that are not about one source module, each with its reason. Keep this list short. */
const ALLOWED: Readonly<Record<string, string>> = {
  'layers.test.ts': 'the import graph of the whole tree (imports point down)',
  'layout.test.ts': 'this file: where tests live',
  'run-tests-count.test.ts': 'the test runner itself (test/helpers/run-tests.ts)',
  'run-tests-prune.test.ts': 'the test runner itself (test/helpers/run-tests.ts, scripts/prune-dist.mjs)',
  'run-tests-select.test.ts': "the test runner itself (test/helpers/run-tests.ts: the files of CI's second pass)",
  'systemd.test.ts': 'the shipped unit file systemd/gatewayd.service, not a TypeScript module',
  'docs.test.ts': 'README.md and docs/*.md (length, links, anchors), not a TypeScript module',
  'anchor/anvil-helper.test.ts': 'the anvil test helper the anchoring tests rely on (test/helpers/anvil.ts)',
};

/** Test files under test/, repository-relative to test/, support folders left out. */
function testFiles(dir = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(root, 'test', dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SUPPORT.has(entry.name)) out.push(...testFiles(rel));
    } else if (entry.name.endsWith('.test.ts')) out.push(rel);
  }
  return out;
}

/** The source path a test path mirrors, without extension: cli/, shared/ and console/ as they are, the rest in daemon/. */
function sourceOf(rel: string): string {
  return rel.startsWith('cli/') || rel.startsWith('shared/') || rel.startsWith('console/') ? rel : `daemon/${rel}`;
}

/** True when `src` (no extension) is a module or a folder of the source tree. */
function exists(src: string): boolean {
  return (
    fs.existsSync(path.join(root, `${src}.ts`)) || fs.statSync(path.join(root, src), { throwIfNoEntry: false })?.isDirectory() === true
  );
}

/** The source module or folder a test file mirrors, or null when none does. */
function mirrored(rel: string): string | null {
  const dir = path.posix.dirname(rel);
  const name = path.posix.basename(rel, '.test.ts');
  const prefix = dir === '.' ? '' : `${dir}/`;
  const whole = sourceOf(`${prefix}${name}`);
  if (exists(whole)) return whole;
  // <module>.<aspect>: the module is the name up to its first dot.
  const dot = name.indexOf('.');
  if (dot > 0) {
    const module = sourceOf(`${prefix}${name.slice(0, dot)}`);
    if (exists(module)) return module;
  }
  return null;
}

t.test('every test file mirrors a source module or folder, or is allowed with a reason', async (t) => {
  const files = testFiles();
  t.ok(files.length > 50, 'the walk found the tests');
  const stray = files.filter((rel) => !(rel in ALLOWED) && mirrored(rel) === null);
  t.same(stray, [], 'move these to test/<source path>.test.ts (or <module>.<aspect>.test.ts)');
  const stale = Object.keys(ALLOWED).filter((rel) => !files.includes(rel));
  t.same(stale, [], 'allowed files that no longer exist');
});

t.test('the mapping: module, folder, aspect, cli/ and shared/', async (t) => {
  t.equal(mirrored('mcp/scan/classify.test.ts'), 'daemon/mcp/scan/classify');
  t.equal(mirrored('verify/stages.test.ts'), 'daemon/verify/stages');
  t.equal(mirrored('api/v1/mcp-proxy.clients.test.ts'), 'daemon/api/v1/mcp-proxy');
  t.equal(mirrored('cli/commands/traces/check-proof.anchor.test.ts'), 'cli/commands/traces/check-proof');
  t.equal(mirrored('shared/merkle.test.ts'), 'shared/merkle');
  t.equal(mirrored('mcp/classify.test.ts'), null);
  t.equal(mirrored('api/mcp-proxy-clients.test.ts'), null);
});
