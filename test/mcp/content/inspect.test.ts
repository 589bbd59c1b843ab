// Strings of a JSON value with their paths, and masking in place: the path forms (identifiers,
// quoted keys, indexes), document order, binary members left out, and only the strings with a
// REDACT finding rebuilt.
import t from 'tap';
import { contentRules } from '../../../daemon/mcp/content/effective.js';
import { inspect, redactValue, stringsIn } from '../../../daemon/mcp/content/inspect.js';

const KEY = 'AKIAZ3MSJV4WWQ5RMNBV';

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
  const seen = inspect(value, rules, 'data', 1000);
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
  const seen = inspect({ [`aws ${KEY}`]: 'value' }, rules, 'data', 1000);
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
  const seen = inspect(value, rules, 'data', 1000, skip);
  t.same(
    seen.findings.map((f) => f.path),
    ['$.content[1].text'],
  );
});
