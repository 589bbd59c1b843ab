// Strings of a JSON value with their paths, and masking in place: the path forms (identifiers,
// quoted keys, indexes), document order, binary members left out, and only the strings with a
// REDACT finding rebuilt.
import t from 'tap';
import { contentRules } from '../../../daemon/mcp/content/effective.js';
import { inspect, inspectInTurns, redactValue } from '../../../daemon/mcp/content/inspect.js';
import { stringsIn } from '../../../daemon/mcp/content/json-strings.js';

const KEY = 'AKIAZ3MSJV4WWQ5RMNBV';
// Budgets are not under test here: a rule's first use compiles it (over a second on a loaded machine).
const BUDGET = 60_000;

t.test('paths: identifiers, quoted keys, indexes; document order; nothing recursive', async (t) => {
  const value = { a: { b: ['x', { 'odd key': 'y', 'q"]x': 'z' }] }, n: 1, e: '' };
  t.same(
    stringsIn(value),
    [
      { path: '$.a.b[0]', text: 'x' },
      { path: '$.a.b[1]["odd key"] (key)', text: 'odd key' },
      { path: '$.a.b[1]["odd key"]', text: 'y' },
      { path: '$.a.b[1]["q\\"]x"] (key)', text: 'q"]x' },
      { path: '$.a.b[1]["q\\"]x"]', text: 'z' },
    ],
    'a key that is not a plain name is text too, before its value',
  );
  let deep: unknown = 'leaf';
  for (let i = 0; i < 200_000; i++) deep = [deep];
  t.equal(stringsIn(deep).length, 1, '200,000 levels of nesting do not exhaust the stack');
});

t.test('masking rebuilds only what leads to a masked string, numbering in document order', async (t) => {
  const rules = contentRules([], 'srv', 'tool', 'results'); // secrets REDACT by default
  const shared = { untouched: true };
  const value = { first: `k=${KEY}`, list: [{ 'odd"]key': `again ${KEY}` }], other: shared, note: 'AKIA is a prefix' };
  const seen = inspect(value, rules, 'data', BUDGET);
  t.ok(seen.ok);
  if (!seen.ok) return;
  const masked = redactValue(value, seen.located) as typeof value;
  t.same(masked, {
    first: 'k=[AWS_ACCESS_KEY_1]',
    list: [{ 'odd"]key': 'again [AWS_ACCESS_KEY_1]' }],
    other: { untouched: true },
    note: 'AKIA is a prefix',
  });
  t.equal(masked.other, shared, 'a branch without a masked string is shared, not copied');
  t.equal(value.first, `k=${KEY}`, 'the input is left as it was');
});

t.test('a secret in a key cannot be masked: it blocks', async (t) => {
  const rules = contentRules([], 'srv', null, 'results'); // secrets REDACT by default
  const seen = inspect({ [`aws ${KEY}`]: 'value' }, rules, 'data', BUDGET);
  t.match(seen.findings, [{ entity: 'AWS_ACCESS_KEY', path: '$["…"] (key)', effect: 'BLOCK' }]);
  t.notMatch(JSON.stringify(seen.findings), KEY, 'the finding does not carry the key it was found in');
});

t.test('a skipped member is not inspected', async (t) => {
  const rules = contentRules([], 'srv', null, 'results');
  const value = {
    content: [
      { type: 'image', data: KEY },
      { type: 'text', text: KEY },
    ],
  };
  const skip = (key: string, parent: Readonly<Record<string, unknown>>) => key === 'data' && parent.type === 'image';
  const seen = inspect(value, rules, 'data', BUDGET, skip);
  t.same(
    seen.findings.map((f) => f.path),
    ['$.content[1].text'],
  );
});

const GHP = 'ghp_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa1eRu5o';

t.test('a key that is a plain name is read by the secrets detector, and its path never shows it (issue 25, item 3)', async (t) => {
  const rules = contentRules([], 'srv', 'tool', 'arguments'); // secrets BLOCK, pii and injection FLAG
  for (const key of [GHP, KEY]) {
    const seen = inspect({ [key]: 1, nested: { [key]: 'x' } }, rules, 'prompt', BUDGET);
    t.match(
      seen.findings.filter((f) => f.detector === 'secrets'),
      [
        { path: '$["…"] (key)', effect: 'BLOCK' },
        { path: '$.nested["…"] (key)', effect: 'BLOCK' },
      ],
      key.slice(0, 4),
    );
    t.notMatch(JSON.stringify(seen.findings), key, 'no path carries the key');
  }
  const names = inspect({ name: 'x', ignore_previous_instructions: 1 }, rules, 'prompt', BUDGET);
  t.same(names.findings, [], 'a plain name goes to the secrets detector only');
  t.same(stringsIn({ [GHP]: 1 }), [], 'stringsIn still lists what every detector reads');
});

t.test('a secret split across sibling strings is found on each part it covers (issue 25, item 6)', async (t) => {
  const args = contentRules([], 'srv', 'tool', 'arguments');
  const split = inspect({ a: GHP.slice(0, 12), b: GHP.slice(12) }, args, 'prompt', BUDGET);
  t.match(split.findings, [
    { entity: 'GITHUB_TOKEN', path: '$.a', effect: 'BLOCK', rule: 'github-pat(split)' },
    { entity: 'GITHUB_TOKEN', path: '$.b', effect: 'BLOCK' },
  ]);
  const three = inspect(['AKIA', 'Z3MSJV4W', 'WQ5RMNBV'], args, 'prompt', BUDGET);
  t.same(
    three.findings.map((f) => f.path),
    ['$[0]', '$[1]', '$[2]'],
    'three parts',
  );
  const long = inspect(
    { a: `${'filler text '.repeat(200)}${GHP.slice(0, 20)}`, b: `${GHP.slice(20)} ${'more text '.repeat(200)}` },
    args,
    'prompt',
    BUDGET,
  );
  t.same(
    long.findings.filter((f) => f.detector === 'secrets').map((f) => f.path),
    ['$.a', '$.b'],
    'at the edges of long parts',
  );
  if (long.ok)
    t.same(
      long.located.filter((l) => l.finding.detector === 'secrets').map((l) => [l.span.start, l.span.end]),
      [
        [2400, 2420],
        [0, 20],
      ],
    );
  const results = contentRules([], 'srv', 'tool', 'results'); // secrets REDACT
  const value = { a: GHP.slice(0, 12), b: GHP.slice(12), c: 'unrelated' };
  const seen = inspect(value, results, 'data', BUDGET);
  t.ok(seen.ok);
  if (!seen.ok) return;
  t.same(redactValue(value, seen.located), { a: '[GITHUB_TOKEN_1]', b: '[GITHUB_TOKEN_2]', c: 'unrelated' }, 'each part masked');
  for (const benign of [
    { first: 'Hello ', second: 'world' },
    ['ghp_', 'is the prefix of a GitHub token'],
    { id: '3f2b8c1e-9d4a-4e7b', rest: '-8c2f-1a6d5e9b0c3f' },
    { a: 'ghp_aaaaaaaaaaaaaaaaaa', b: 'aaaaaaaaaaaaaaaaaa' },
  ])
    t.same(inspect(benign, args, 'prompt', BUDGET).findings, [], JSON.stringify(benign));
});

t.test('a total budget per message, however short each string (fail closed)', async (t) => {
  const value = { items: Array.from({ length: 2000 }, (_, i) => `item ${i}`) };
  const rules = contentRules([], 'srv', 't', 'arguments');
  const over = inspect(value, rules, 'prompt', 1000, undefined, 0);
  t.match(over, { ok: false, errorClass: 'inspection_budget_exceeded' });
  const inTurns = await inspectInTurns(value, rules, 'prompt', 1000, 0);
  t.match(inTurns, { ok: false, errorClass: 'inspection_budget_exceeded' });
  t.match(await inspectInTurns(value, rules, 'prompt', 1000, 60_000), { ok: true, findings: [] }, 'within it: inspected');
});
