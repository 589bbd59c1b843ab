// Remembered clean strings: a name or token a detector found nothing in is not read again under the
// same configuration and origin; anything with a finding, and any sentence, is read every time.
import t from 'tap';
import { knownClean, rememberable, rememberClean } from '../../../daemon/mcp/content/clean-strings.js';
import { contentRules } from '../../../daemon/mcp/content/effective.js';
import { inspect } from '../../../daemon/mcp/content/inspect.js';

const KEY = 'AKIAZ3MSJV4WWQ5RMNBV';
const BUDGET = 60_000;

t.test('names and tokens found clean are remembered per configuration and origin; findings never', async (t) => {
  const rules = contentRules([], 's', 'tool', 'results');
  const secrets = rules.find((r) => r.detector === 'secrets')!;
  const value = { content: [{ type: 'text', text: 'plain words here', [KEY]: 1 }], status: 'application/json' };
  const first = inspect(value, rules, 'data', BUDGET);
  t.ok(first.ok);
  t.ok(knownClean(secrets.config, 'data', 'content'), 'a plain key the secrets detector cleared');
  t.ok(knownClean(secrets.config, 'data', 'application/json'), 'a token value');
  t.notOk(knownClean(secrets.config, 'data', 'plain words here'), 'a sentence is not remembered');
  t.notOk(knownClean(secrets.config, 'data', KEY), 'a key holding a secret is not remembered');
  t.notOk(knownClean(secrets.config, 'prompt', 'content'), 'another origin has its own');
  t.notOk(knownClean({ ...(secrets.config as object) }, 'data', 'content'), 'another configuration has its own');
  // The secret in a key is found on every call, however often the call repeats.
  for (let i = 0; i < 3; i++) {
    const again = inspect(value, rules, 'data', BUDGET);
    t.same(again.ok ? again.findings.map((f) => f.entity) : 'failed', ['AWS_ACCESS_KEY'], `call ${i + 2}`);
  }
});

t.test('only short names and tokens may be remembered, and the set is bounded', async (t) => {
  t.ok(rememberable('isError'));
  t.ok(rememberable('image/png'));
  t.notOk(rememberable('two words'), "a space makes it someone's words");
  t.notOk(rememberable('x'.repeat(65)), 'too long');
  const config = {};
  rememberClean(config, 'data', 'two words');
  t.notOk(knownClean(config, 'data', 'two words'), 'not kept even when asked');
  for (let i = 0; i < 5000; i++) rememberClean(config, 'data', `name${i}`);
  t.notOk(knownClean(config, 'data', 'name0'), 'the set started again past its limit');
  t.ok(knownClean(config, 'data', 'name4999'));
});
