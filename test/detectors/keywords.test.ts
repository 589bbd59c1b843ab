import t from 'tap';
import { RE2 } from 're2-wasm';
import { ZodError } from 'zod';
import { keywordsDetector, MAX_PATTERN_LENGTH, MAX_PATTERNS, regexDetector } from '../../daemon/detectors/keywords.js';
import { guardRe2, onRe2Exhausted, re2Heap, releaseRe2 } from '../../daemon/detectors/re2-heap.js';
import { re2Matches, wellFormed } from '../../daemon/detectors/re2-match.js';
import { WordAutomaton } from '../../daemon/detectors/word-automaton.js';

const slices = (text: string, findings: ReadonlyArray<{ start: number; end: number }>): string[] =>
  findings.map((f) => text.slice(f.start, f.end));

function zodMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof ZodError) return err.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw err;
  }
  throw new Error('expected a ZodError');
}

t.test('keywords: case-insensitive whole words by default, entity from config', async (t) => {
  const config = keywordsDetector.parseConfig({ words: ['Project Falcon', 'confidential'] });
  const text = 'CONFIDENTIAL: project falcon ships in May; nonconfidential notes and Project Falconry do not count.';
  const found = keywordsDetector.detect(text, config);
  t.same(slices(text, found), ['CONFIDENTIAL', 'project falcon']);
  t.match(found[0], { detector: 'keywords', entity: 'CUSTOM_KEYWORD', score: 1, rule: 'confidential' });

  const loose = keywordsDetector.parseConfig({ words: ['falcon'], whole_word: false, entity: 'CODENAME' });
  t.same(slices(text, keywordsDetector.detect(text, loose)), ['falcon', 'Falcon']);
  t.equal(keywordsDetector.detect(text, loose)[0]!.entity, 'CODENAME');
});

t.test('keywords: Unicode words, offsets after astral characters, overlapping words', async (t) => {
  const config = keywordsDetector.parseConfig({ words: ['café', 'straße', 'api', 'api key'] });
  const text = '😀 Das Café in der Hauptstraße; cafés; our API key';
  t.same(slices(text, keywordsDetector.detect(text, config)), ['Café', 'API key', 'API'], 'not inside Hauptstraße or cafés');
});

t.test('keywords: the match count is bounded', async (t) => {
  const config = keywordsDetector.parseConfig({ words: ['x'], max_matches: 5 });
  t.equal(keywordsDetector.detect('x '.repeat(1000), config).length, 5);
});

t.test('keywords: bad configuration is refused', async (t) => {
  t.throws(() => keywordsDetector.parseConfig({ words: [] }), ZodError);
  t.throws(() => keywordsDetector.parseConfig({ words: ['  '] }), ZodError);
  t.throws(() => keywordsDetector.parseConfig({ words: ['a'], entity: 'lower case' }), ZodError);
  t.throws(() => keywordsDetector.parseConfig({ words: ['a'], extra: true }), ZodError);
  t.throws(
    () => keywordsDetector.parseConfig({ words: Array.from({ length: 200 }, (_, i) => 'w'.repeat(190) + i) }),
    ZodError,
    'total characters capped',
  );
});

t.test('the word automaton finds every occurrence of every word in one pass', async (t) => {
  const a = new WordAutomaton(['he', 'she', 'his', 'hers', 'é']);
  const hits: string[] = [];
  a.scan('ushers café', (w, end) => {
    hits.push(`${a.words[w]}@${end}`);
  });
  t.same(hits, ['she@4', 'he@4', 'hers@6', 'é@11']);
  t.same(a.present('his'), [false, false, true, false, false]);
});

t.test('regex: matches with the entity of its pattern, offsets in UTF-16', async (t) => {
  const config = regexDetector.parseConfig({
    patterns: [
      { pattern: String.raw`EMP-\d{6}`, entity: 'EMPLOYEE_ID' },
      { pattern: 'project\\s+[a-z]+', case_insensitive: true },
    ],
  });
  const text = '𝒜😀 EMP-123456 joined PROJECT Falcon; EMP-12 is too short.';
  const found = regexDetector.detect(text, config);
  t.same(slices(text, found), ['EMP-123456', 'PROJECT Falcon']);
  t.match(found, [
    { detector: 'regex', entity: 'EMPLOYEE_ID', rule: 'pattern-0' },
    { entity: 'CUSTOM_REGEX', rule: 'pattern-1' },
  ]);
});

t.test('regex: patterns RE2 cannot compile are refused at parse time, with the reason', async (t) => {
  const backref = zodMessage(() => regexDetector.parseConfig({ patterns: [{ pattern: '(a)\\1' }] }));
  t.match(
    backref,
    /patterns\.0\.pattern: RE2 cannot compile this pattern \(invalid escape sequence: \\1\); RE2 has no lookaround and no backreferences/,
  );
  t.match(
    zodMessage(() => regexDetector.parseConfig({ patterns: [{ pattern: 'ok' }, { pattern: 'x(?=y)' }] })),
    /patterns\.1\.pattern: RE2 cannot compile/,
  );
  t.match(
    zodMessage(() => regexDetector.parseConfig({ patterns: [{ pattern: 'a{1001}' }] })),
    /invalid repetition size/,
  );
  t.match(
    zodMessage(() => regexDetector.parseConfig({ patterns: [{ pattern: 'x*' }] })),
    /matches the empty string/,
  );
  t.match(
    zodMessage(() => regexDetector.parseConfig({ patterns: [{ pattern: 'a'.repeat(MAX_PATTERN_LENGTH + 1) }] })),
    /patterns\.0\.pattern/,
  );
  t.throws(() => regexDetector.parseConfig({ patterns: Array.from({ length: MAX_PATTERNS + 1 }, () => ({ pattern: 'a' })) }), ZodError);
  t.throws(() => regexDetector.parseConfig({ patterns: [] }), ZodError);
});

t.test('regex: the match count is bounded', async (t) => {
  const config = regexDetector.parseConfig({ patterns: [{ pattern: 'a' }, { pattern: 'b' }], max_matches: 7 });
  t.equal(regexDetector.detect('ab'.repeat(100), config).length, 7);
});

// The same patterns under V8's backtracking RegExp are exponential in the input length. Measured on
// this box (Node 20): /(a+)+$/ against 'a'.repeat(n) + '!' took 15 ms at n = 20, 64 ms at 22 and
// 270 ms at 24, doubling with each character, so 100 KB would not finish in the lifetime of the
// machine; /(a|aa)*b/ against 'a'.repeat(n) grows by ~1.6x a character (100 ms at n = 32). RE2 runs
// both in time linear in the input; the test asserts only that they finish, under tap's timeout.
t.test('regex: a pathological pattern on 100 KB completes, because RE2 does not backtrack', { timeout: 60_000 }, async (t) => {
  const input = 'a'.repeat(100_000);
  for (const pattern of ['(a+)+$', '(a|aa)*b', '(a*)*c', '(?:a|a)*x']) {
    const config = regexDetector.parseConfig({ patterns: [{ pattern }], max_matches: 1 });
    const started = process.hrtime.bigint();
    const found = regexDetector.detect(input + '!', config);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    t.same(found, [], `${pattern} finds nothing`);
    t.comment(`${pattern} on ${(input.length / 1024).toFixed(0)} KB: ${ms.toFixed(1)} ms`);
  }
});

t.test('re2Matches: code-point offsets become UTF-16 offsets; submatches only when asked', async (t) => {
  const re = new RE2('(k)(ey)?', 'u');
  const text = wellFormed('😀k\uD800key😀key');
  t.equal(text, '😀k\uFFFDkey😀key', 'a lone surrogate becomes U+FFFD, so RE2 can read the text');
  const all = re2Matches(re, text, 10);
  t.same(
    all.map((m) => [m.start, m.end]),
    [
      [2, 3],
      [4, 7],
      [9, 12],
    ],
  );
  t.same(all[1]!.groups, ['key', 'k', 'ey']);
  t.same(re2Matches(re, text, 10, false)[1]!.groups, ['key']);
  t.same(
    re2Matches(re, text, 1, false, 2).map((m) => m.start),
    [2],
    'a short lookahead finds the same first match',
  );
  t.equal(re2Matches(new RE2('b*', 'u'), 'abba', 10).length, 4, 'empty matches advance');
});

t.test(
  'heaps: each is its own re2-wasm instance; running one out fails the call, releases, and recovers',
  { timeout: 120_000 },
  async (t) => {
    t.not(re2Heap(1), re2Heap(0));
    t.equal(re2Heap(1), re2Heap(1));
    const Heap = re2Heap(7);
    const held: RE2[] = [];
    let released = 0;
    onRe2Exhausted(() => {
      released++;
    });
    const err = t.throws(() =>
      guardRe2(() => {
        for (;;) held.push(new Heap(`x[a-z0-9]{300}y${held.length}`, 'u'));
      }),
    );
    t.match(String(err), /ran out of a 16 MB WebAssembly heap/);
    t.equal(released, 1, 'holders of compiled patterns were told');
    t.comment(`heap 7 held ${held.length} patterns of ~20 KB`);
    const Other = re2Heap(0);
    t.ok(new Other('ok', 'u').test('ok'), 'the other heaps never noticed');
    for (const re of held) releaseRe2(re);
    t.ok(new Heap('b(c)', 'u').test('abc'), 'the exhausted heap works again once its patterns are released');
    t.throws(
      () =>
        guardRe2(() => {
          throw new TypeError('not about memory');
        }),
      TypeError,
      'other errors pass through',
    );
    t.equal(released, 1);
  },
);
