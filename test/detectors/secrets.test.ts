import t from 'tap';
import { ZodError } from 'zod';
import { secretsDetector, shannonEntropy, TooManySecretsError } from '../../daemon/detectors/secrets.js';
import { compileSecretRules, warmSecretRules } from '../../daemon/detectors/secret-warm.js';
import { SECRET_RULES } from '../../daemon/detectors/secret-rules.js';
import type { Finding } from '../../daemon/detectors/types.js';

const config = secretsDetector.parseConfig(undefined);
const detect = (text: string, c = config): Finding[] => secretsDetector.detect(text, c);
const found = (text: string, c = config): Array<[string, string]> => detect(text, c).map((f) => [f.rule!, text.slice(f.start, f.end)]);

// Fake keys in valid formats (random, never issued).
const AKIA = 'AKIAZ3MHQK2T7XWPLB4N';
const GHP = 'ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5';
const STRIPE = 'sk_live_51Hx9aBcDeFgHiJkLmNoPqRsTuVwX';

t.test('every rule compiles into RE2; the untranslated gitleaks rules are listed with the reason', { timeout: 120_000 }, async (t) => {
  const started = process.cpuUsage();
  const report = compileSecretRules();
  const cpu = process.cpuUsage(started);
  t.comment(`${report.compiled} of ${SECRET_RULES.length} rules compiled in ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU`);
  for (const d of report.dropped) t.comment(`left out: ${d.id}: ${d.why}`);
  t.equal(report.compiled, SECRET_RULES.length);
  t.same(
    report.dropped.map((d) => d.id),
    ['pkcs12-file', 'hashicorp-tf-password'],
  );
  t.ok(SECRET_RULES.filter((r) => r.source === 'gitleaks').length >= 200, 'the gitleaks set, ids kept');
  t.equal(new Set(SECRET_RULES.map((r) => r.id)).size, SECRET_RULES.length, 'ids are unique');
  t.ok(
    SECRET_RULES.every((r) => r.keywords.length > 0 && r.keywords.every((k) => k === k.toLowerCase())),
    'every rule has lower-case keywords',
  );
  t.same(await warmSecretRules(), report, 'warming after compiling compiles nothing twice');
});

t.test('every rule names a keyword: only rules whose keyword occurs are run, so a rule without one could never match', async (t) => {
  t.same(
    SECRET_RULES.filter((r) => r.keywords.length === 0).map((r) => r.id),
    [],
  );
  t.same(secretsDetector.detect('a plain sentence without any secret in it', secretsDetector.parseConfig({})), []);
});

t.test('a vendor key is found with exact offsets, also after astral characters and lone surrogates', async (t) => {
  t.same(found(`my key is ${AKIA} ok`), [['aws-access-token', AKIA]]);
  t.same(found(`😀 \uD800 ${GHP}`), [['github-pat', GHP]]);
  t.match(detect(`x ${AKIA}`)[0], { detector: 'secrets', entity: 'AWS_ACCESS_KEY', score: 0.95 });
});

t.test('a token ends at sentence punctuation in prose', async (t) => {
  for (const after of [',', '.', ')', '!', ']', '; ']) {
    t.same(found(`Stripe key ${STRIPE}${after} thanks`), [['stripe-access-token', STRIPE]], JSON.stringify(after));
  }
});

t.test('documentation keys, placeholders and low-entropy values pass', async (t) => {
  t.same(found('AKIAIOSFODNN7EXAMPLE and wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'), [], 'AWS documentation pair');
  t.same(found('GITHUB_TOKEN=ghp_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'), [], 'entropy floor');
  t.same(found('postgres://user:password@localhost/db and mongodb://<user>:<password>@host/x'), [], 'placeholder passwords');
  t.same(found('api_key = os.environ["OPENAI_API_KEY"]'), [], 'a reference to a variable');
  t.same(found('api_key = "abcdefghijklmnop"'), [], 'generic values need a digit');
});

t.test('a generic finding yields to the vendor finding on the same value', async (t) => {
  t.same(found(`STRIPE_API_KEY = "${STRIPE}"`), [['stripe-access-token', STRIPE]]);
  t.same(found(`https://x-access-token:${GHP}@github.com/acme/app.git`), [['github-pat', GHP]]);
});

t.test('connection strings: the password is the finding', async (t) => {
  t.same(found('DATABASE_URL=postgres://app:Qx7vN2pLm9Rt4@db.internal:5432/orders'), [['connection-string-password', 'Qx7vN2pLm9Rt4']]);
  t.same(found('redis://:Zk3mP8qW2nR7vT1x@cache:6379/0'), [['connection-string-password', 'Zk3mP8qW2nR7vT1x']]);
  t.same(found('postgres://db.internal:5432/orders'), [], 'no credentials, no finding');
});

t.test('a private key block is one finding, however long', async (t) => {
  const body = Array.from({ length: 52 }, (_, i) =>
    `MIIJKAIBAAKCAgEA${String(i).padStart(2, '0')}x9vQ2mL7pR4tN8wK3zB6cF1hJ5sD0gY2uE7iO4aQ9nM3bV8xZ1kP6lT`.slice(0, 64),
  ).join('\n');
  const block = `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`;
  t.ok(block.length > 3000);
  t.same(found(`key:\n${block}\n`), [['private-key', block]]);
});

t.test('keyword windows: a key far from other text is still found; keyword floods stay linear', async (t) => {
  const filler = 'lorem ipsum dolor sit amet '.repeat(2000);
  t.same(found(`${filler}${GHP} ${filler}`), [['github-pat', GHP]]);
  const started = process.hrtime.bigint();
  t.same(found('token key api secret password sk s. '.repeat(3000)), []);
  t.comment(`keyword flood of ${((3000 * 36) / 1024).toFixed(0)} KB: ${(Number(process.hrtime.bigint() - started) / 1e6).toFixed(0)} ms`);
});

t.test('configuration: disabled rules, allowed values, unknown ids refused', async (t) => {
  t.same(found(`${AKIA}`, secretsDetector.parseConfig({ disabled_rules: ['aws-access-token'] })), []);
  t.same(found(`${AKIA} ${GHP}`, secretsDetector.parseConfig({ allow_values: [AKIA] })), [['github-pat', GHP]]);
  t.throws(() => secretsDetector.parseConfig({ disabled_rules: ['no-such-rule'] }), ZodError);
  t.throws(() => secretsDetector.parseConfig({ surprise: 1 }), ZodError);
  t.same(secretsDetector.parseConfig({}), { disabled_rules: [], allow_values: [] });
  t.same(detect(''), []);
});

t.test('Shannon entropy is measured in bits per character', async (t) => {
  t.equal(shannonEntropy('aaaa'), 0);
  t.equal(shannonEntropy('abcd'), 2);
  t.ok(shannonEntropy(GHP.slice(4)) > 4.5);
});

t.test('decoys a rule rejects do not count against a cap: the real token after 200 of them is found (issue 25, item 5)', async (t) => {
  const config = secretsDetector.parseConfig(undefined);
  const token = 'ghp_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa1eRu5o';
  for (const decoy of ['a', 'Z', '0']) {
    const text = `${`ghp_${decoy.repeat(36)} `.repeat(200)}${token}`;
    const found = secretsDetector.detect(text, config).map((f) => text.slice(f.start, f.end));
    t.same(found, [token], `200 x ghp_${decoy.repeat(3)}...`);
  }
  const many = Array.from({ length: 1001 }, (_, i) => `ghp_Zq8vLw3nPx7rTb2mKc9sYh4dFj6gNa${String(i).padStart(4, '0')}eR`).join(' ');
  let failed: unknown = null;
  try {
    secretsDetector.detect(many, config);
  } catch (err) {
    failed = err;
  }
  t.ok(failed instanceof TooManySecretsError, 'more secrets than one call reports: it fails, it does not stop looking');
});

t.test('a rule with a mustContain prefilter: every string its regex is built to match contains it', async (t) => {
  const { sampleOf } = await import('../../daemon/detectors/re2-sample.js');
  const prefiltered = SECRET_RULES.filter((r) => r.mustContain !== undefined);
  t.ok(prefiltered.length >= 6, 'the rules whose keywords are a letter or two');
  for (const rule of prefiltered) {
    const sample = sampleOf(rule.regex);
    t.ok(rule.mustContain!.test(sample), `${rule.id}: ${JSON.stringify(sample)}`);
  }
  // The prefilter does not change what is found: the rule's own vectors still are.
  t.same(found('bot token 7891234560:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0 here'), [
    ['telegram-bot-token', '7891234560:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw0'],
  ]);
  t.same(
    found('twilio sid AC0f3e8a9b2c4d6e1f7a5b3c9d8e2f4a6b ok').map(([r]) => r),
    ['twilio-account-sid'],
  );
});
