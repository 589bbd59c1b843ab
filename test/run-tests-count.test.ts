// The CI line "N passed, M failed" and the list of failures printed before it (run-tests.ts).
import t from 'tap';
import { countResults } from './helpers/run-tests.js';

const tap = [
  '# Subtest: dist/test/a.test.js',
  '    ok 1 - first # time=1ms',
  '    # Subtest: second breaks',
  '        ok 1 - fine',
  '        not ok 2 - should be equal',
  '          ---',
  '          found: 1',
  '          wanted: 2',
  '          ...',
  '        1..2',
  '    not ok 2 - second breaks # time=2ms',
  '    ok 3 - third',
  'not ok 1 - dist/test/a.test.js # time=10ms',
  '# Subtest: dist/test/b.test.js',
  '    ok 1 - only',
  'ok 2 - dist/test/b.test.js # time=3ms',
  '# Subtest: dist/test/c.test.js',
  'not ok 3 - dist/test/c.test.js # time=4ms',
].join('\n');

t.test(
  'each top-level subtest counts once; a file failing on its own counts as one failure; a failure keeps its failed assertions and their diagnostics',
  async (t) => {
    const r = countResults(tap);
    t.equal(r.passed, 3);
    t.equal(r.failed, 2);
    t.same(r.failures, [
      { name: 'dist/test/a.test.js: second breaks', detail: ['not ok: should be equal', '---', 'found: 1', 'wanted: 2', '...'] },
      { name: 'dist/test/c.test.js: (the file itself)', detail: [] },
    ]);
  },
);

t.test('a clean run names no failure', async (t) => {
  t.same(countResults('    ok 1 - x\nok 1 - f.test.js\n'), { passed: 1, failed: 0, failures: [] });
});
