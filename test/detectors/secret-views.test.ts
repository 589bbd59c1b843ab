// The views the secret rules also read (issue 25, item 6): invisible characters and look-alike
// letters, base64 and percent-encoding decoded once and bounded, vendor prefixes in their own case;
// each finding lands on the span of the original text it stands for. Every key here is fake.
import t from 'tap';
import { secretsDetector } from '../../daemon/detectors/secrets.js';
import { base64View, decodedViews, normalisedView, percentView } from '../../daemon/detectors/secret-views.js';

const config = secretsDetector.parseConfig(undefined);
const found = (text: string): Array<[string, string]> =>
  secretsDetector.detect(text, config).map((f) => [f.rule ?? '', text.slice(f.start, f.end)]);
const TOKEN = 'ghp_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa1eRu5o';

t.test('a zero-width or invisible character inside a token does not hide it; the span covers it', async (t) => {
  for (const mark of ['\u200b', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\ufe0f']) {
    const text = `key: ${TOKEN.slice(0, 9)}${mark}${TOKEN.slice(9)} end`;
    t.same(found(text), [['github-pat', `${TOKEN.slice(0, 9)}${mark}${TOKEN.slice(9)}`]], JSON.stringify(mark));
  }
});

t.test('look-alike letters of other scripts and fullwidth forms are read as Latin, case kept', async (t) => {
  t.same(found('АKIAZ3MSJV4WWQ5RMNBV'), [['aws-access-token', 'АKIAZ3MSJV4WWQ5RMNBV']], 'Cyrillic А');
  t.same(
    found('ｇｈｐ_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa1eRu5o'),
    [['github-pat', 'ｇｈｐ_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa1eRu5o']],
    'fullwidth prefix',
  );
  t.equal(normalisedView('plain ASCII'), null, 'nothing to change: no view');
  t.equal(normalisedView('Crème brûlée, señor'), null, 'accented letters are not look-alikes');
});

t.test('base64 and base64url of a text holding a secret: the finding covers the encoded run', async (t) => {
  const b64 = Buffer.from(`export GITHUB_TOKEN=${TOKEN}`).toString('base64');
  t.same(found(`config: ${b64}`), [['github-pat', b64]]);
  const url = Buffer.from(TOKEN).toString('base64url');
  t.same(found(url), [['github-pat', url]]);
  t.same(
    found('data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
    [],
  );
  t.equal(base64View('aGVsbG8='), null, 'runs shorter than 24 characters are not decoded');
  t.equal(base64View('9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08'), null, 'hex is not base64 text');
});

t.test('percent-encoding: the finding covers the encoded token', async (t) => {
  const enc = [...TOKEN].map((c) => `%${c.charCodeAt(0).toString(16)}`).join('');
  t.same(found(`see ${enc} here`), [['github-pat', enc]]);
  const query = 'https://hooks.acme.io/in?password%3DXk7%21pQ2mNv%26user%3Dbob';
  t.same(found(query), [['password-assignment', query]]);
  t.equal(percentView('no escapes here'), null);
  t.same(found('https://example.org/search?q=caf%C3%A9%20au%20lait&page=2'), []);
});

t.test('decoding is bounded: at most 64 runs and 64 KB of decoded text per string', async (t) => {
  const runs = Array.from({ length: 100 }, (_, i) => Buffer.from(`line ${i} of an ordinary text`).toString('base64')).join(' ');
  const view = base64View(runs);
  t.ok(view !== null && view.text.split('\n').length - 1 <= 64, 'at most 64 runs decoded');
  const big = Buffer.from('x'.repeat(100_000)).toString('base64');
  t.equal(base64View(big), null, 'a run longer than 64 KB is not decoded');
  t.ok(decodedViews(`${TOKEN} ${big}`).every((v) => v.text.length <= 64 * 1024 + 1024));
});

t.test('case: a change of case is a finding only when it can be undone', async (t) => {
  t.same(found(`GHP_${TOKEN.slice(4)}`), [['github-pat', `GHP_${TOKEN.slice(4)}`]], 'the prefix in another case, the body intact');
  t.same(found(`Ghp_${TOKEN.slice(4)}`), [['github-pat', `Ghp_${TOKEN.slice(4)}`]]);
  const shop = 'SHPAT_A1B2C3D4E5F60718293A4B5C6D7E8F90';
  t.same(found(shop), [['shopify-access-token', shop]], 'a hex body in either case is the same key');
  t.same(found(TOKEN.toUpperCase()), [], 'a base62 body upper-cased is no longer the token');
  t.same(found(TOKEN.toLowerCase().replace('ghp_', 'GHP_')), [], 'nor lower-cased');
  t.same(found('Asia and Africa; ASK the SKILLS team'), [], 'words that begin like a prefix');
});
