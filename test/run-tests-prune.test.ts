// The runner removes compiled files whose source is gone before it picks the tests to run, so a
// deleted test cannot run from a stale dist/ (run-tests.ts, scripts/prune-dist.mjs); and its
// coverage lines.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import t, { type Test } from 'tap';
import { coverageLines, testsToRun } from './helpers/run-tests.js';

/** A project root laid out as tsc leaves it: sources, dist/ with their outputs, the tsbuildinfo. */
async function project(t: Test, files: Record<string, string>): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'gw-prune-'));
  t.teardown(() => fs.rm(root, { recursive: true, force: true }));
  const all: Record<string, string> = { 'tsconfig.json': JSON.stringify({ include: ['daemon/**/*.ts', 'test/**/*.ts'] }), ...files };
  for (const [rel, text] of Object.entries(all)) {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), text);
  }
  return root;
}

const exists = (file: string): Promise<boolean> =>
  fs.access(file).then(
    () => true,
    () => false,
  );

t.test('a compiled test whose .ts was deleted is removed and not run; tests with a source stay', async (t) => {
  const root = await project(t, {
    'test/kept.test.ts': '',
    'dist/test/kept.test.js': '',
    'dist/test/kept.test.js.map': '',
    'dist/test/gone.test.js': 'throw new Error("a stale build ran");',
    'dist/test/gone.test.js.map': '',
    'dist/test/old/moved.test.js': '',
    'dist/.tsbuildinfo': '{}',
  });
  const { files, pruned } = await testsToRun(root, []);
  t.same(files, ['dist/test/kept.test.js']);
  t.same(pruned, ['dist/test/gone.test.js', 'dist/test/gone.test.js.map', 'dist/test/old/moved.test.js']);
  t.notOk(await exists(path.join(root, 'dist/test/gone.test.js')));
  t.notOk(await exists(path.join(root, 'dist/test/old')), 'the folder it emptied goes too');
  t.ok(await exists(path.join(root, 'dist/test/kept.test.js.map')));
  t.ok(await exists(path.join(root, 'dist/.tsbuildinfo')), 'the incremental build keeps its record');
});

t.test('a moved module leaves no importable copy at its old place; other outputs are kept', async (t) => {
  const root = await project(t, {
    'daemon/new/place.ts': '',
    'dist/daemon/new/place.js': '',
    'dist/daemon/old-place.js': '',
    'dist/daemon/notes.txt': '', // not something tsc writes: not ours to remove
    'dist/other/x.js': '', // outside the tsconfig's include
  });
  const { pruned } = await testsToRun(root, ['dist/test/named.test.js']);
  t.same(pruned, ['dist/daemon/old-place.js']);
  t.ok(await exists(path.join(root, 'dist/daemon/new/place.js')));
  t.ok(await exists(path.join(root, 'dist/daemon/notes.txt')));
  t.ok(await exists(path.join(root, 'dist/other/x.js')));
});

t.test('coverage lines: product code only, in total and by folder', async (t) => {
  const c = (total: number, covered: number) => ({ total, covered });
  const file = (lines: number, covered: number) => ({ lines: c(lines, covered), branches: c(2, 1), functions: c(1, 1) });
  const lines = coverageLines(
    {
      total: file(999, 0),
      '/p/daemon/verify/pipeline.ts': file(10, 9),
      '/p/daemon/verify/stages/a.ts': file(10, 5),
      '/p/daemon/main.ts': file(4, 4),
      '/p/cli/base.ts': file(5, 0),
      '/p/test/helpers/db.ts': file(100, 100),
    },
    '/p',
  );
  t.same(lines, [
    '# coverage of daemon/, cli/, shared/ (the modules the tests loaded): lines 62.1%, branches 50.0%, functions 100.0%',
    '#   cli            lines 0.0%',
    '#   daemon/*.ts    lines 100.0%',
    '#   daemon/verify  lines 70.0%',
  ]);
  t.same(coverageLines({ total: file(0, 0) }, '/p'), ['# coverage: none recorded']);
});
