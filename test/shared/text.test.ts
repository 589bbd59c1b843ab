// Text the database cannot store (a lone UTF-16 surrogate, which only a \u escape can carry, or a
// NUL character) is refused at the door with 400, writes nothing, and cannot spoil a batch of
// other callers' traces.
import t from 'tap';
import { holdsUnstorableText, isWellFormed, QUOTE_MAX_CHARS, quoted } from '../../shared/text.js';
import { startTestGateway } from '../helpers/gateway.js';

const traceCount = async (gw: Awaited<ReturnType<typeof startTestGateway>>) =>
  (await gw.db<{ n: number }[]>`select count(*)::int as n from traces`)[0]!.n;

t.test('a lone surrogate or a NUL anywhere in a JSON body is 400 and writes nothing', async (t) => {
  const gw = await startTestGateway(t);
  const key = await gw.key('viewer');
  const before = await traceCount(gw);
  for (const [what, body] of [
    ['lone high surrogate in the prompt', { prompt: 'a\ud800b' }],
    ['lone low surrogate in a nested field', { prompt: 'hello', input: { note: ['x', '\udfff'] } }],
    ['lone surrogate in a key', { prompt: 'hello', input: { 'k\ud83d': 1 } }],
    ['NUL in the prompt', { prompt: 'a\u0000b' }],
  ] as const) {
    const res = await gw.api('POST', '/api/v1/verify', { token: key, body });
    t.equal(res.status, 400, what);
    t.equal(res.body?.error?.code, 'validation_error', what);
  }
  t.equal(await traceCount(gw), before, 'no trace written');
  const pair = await gw.api('POST', '/api/v1/verify', { token: key, body: { prompt: 'a pair is fine: \ud83d\ude00' } });
  t.equal(pair.status, 200, 'a well-formed surrogate pair passes');
});

t.test('refused bodies sent among good ones leave the good ones answered', async (t) => {
  const gw = await startTestGateway(t);
  const key = await gw.key('viewer');
  const results = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      gw.api('POST', '/api/v1/verify', { token: key, body: { prompt: i % 2 ? `bad \ud800 ${i}` : `good ${i}` } }),
    ),
  );
  t.same(
    results.map((r) => r.status),
    Array.from({ length: 20 }, (_, i) => (i % 2 ? 400 : 200)),
  );
});

t.test('the walk finds bad text at any depth, in keys and values, without recursion', async (t) => {
  let deep: unknown = 'fine';
  for (let i = 0; i < 100_000; i += 1) deep = [deep];
  t.equal(holdsUnstorableText(deep), false, '100,000 levels of nesting are walked');
  let bad: unknown = { 'x\u0000': 1 };
  for (let i = 0; i < 100_000; i += 1) bad = { a: bad };
  t.equal(holdsUnstorableText(bad), true);
  t.equal(holdsUnstorableText({ a: [1, null, true, 'ok \ud83d\ude00'] }), false);
  t.equal(isWellFormed('\ude00\ud83d'), false, 'a pair in the wrong order is two lone halves');
});

t.test('quoted: at most 64 characters of any input, escaped, then …', async (t) => {
  t.equal(QUOTE_MAX_CHARS, 64);
  t.equal(quoted('name'), '"name"');
  t.equal(quoted('k'.repeat(64)), `"${'k'.repeat(64)}"`, 'exactly the limit: not cut');
  t.equal(quoted('k'.repeat(1024 * 1024)), `"${'k'.repeat(64)}"…`, 'a 1 MiB key becomes 64 characters and …');
  t.equal(quoted('a"b\\c\n'), '"a\\"b\\\\c\\n"', 'quotes, backslashes and controls escaped as in JSON');
  t.equal(quoted('\u202egnp.exe'), '"\\u202egnp.exe"', 'a bidirectional override cannot reorder the message');
  t.equal(quoted('a\u0000\u0085\u200b\u2028b'), '"a\\u0000\\u0085\\u200b\\u2028b"', 'NUL, C1, zero-width and line separators escaped');
  t.equal(quoted('\ud800x'), '"\\ud800x"', 'a lone surrogate escaped');
  t.equal(quoted(`${'\u{1F600}'.repeat(70)}`), `"${'\u{1F600}'.repeat(64)}"…`, 'cut on characters, never inside a surrogate pair');
  t.equal(quoted(42), '"42"');
});
