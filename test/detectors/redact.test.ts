import t from 'tap';
import { piiDetector } from '../../daemon/detectors/pii/index.js';
import { redact, Redactor, type RedactSpan } from '../../daemon/detectors/redact.js';

/** A span over the first occurrence (or the n-th) of `value` in `text`. */
function at(text: string, entity: string, value: string, nth = 0): RedactSpan {
  let start = -1;
  for (let i = 0; i <= nth; i++) start = text.indexOf(value, start + 1);
  if (start < 0) throw new Error(`${value} not in text`);
  return { entity, start, end: start + value.length };
}

t.test('masks each finding with a typed placeholder and reports what it replaced', async (t) => {
  const text = 'Mail jo@acme.io now';
  const r = redact(text, [at(text, 'EMAIL', 'jo@acme.io')]);
  t.equal(r.text, 'Mail [EMAIL_1] now');
  t.same(r.replacements, [{ entity: 'EMAIL', placeholder: '[EMAIL_1]', start: 5, end: 15 }]);
  t.same(redact(text, []), { text, replacements: [] });
});

t.test('numbering is per entity type, in order of first appearance; a repeated value keeps its placeholder', async (t) => {
  const text = 'a@x.io, 030 1234567, b@x.io, A@X.IO, 030 1234567';
  const findings = [
    at(text, 'PHONE', '030 1234567', 1),
    at(text, 'EMAIL', 'b@x.io'),
    at(text, 'EMAIL', 'a@x.io'),
    at(text, 'PHONE', '030 1234567'),
    at(text, 'EMAIL', 'A@X.IO'),
  ];
  t.equal(redact(text, findings).text, '[EMAIL_1], [PHONE_1], [EMAIL_2], [EMAIL_1], [PHONE_1]', 'finding order does not matter');
});

t.test('separators and case do not make a number a different value', async (t) => {
  const text = 'card 4820 5841 1199 8483 or 4820-5841-1199-8483 or 4820584111998483; iban de71 8946 and DE718946';
  const r = redact(text, [
    at(text, 'CREDIT_CARD', '4820 5841 1199 8483'),
    at(text, 'CREDIT_CARD', '4820-5841-1199-8483'),
    at(text, 'CREDIT_CARD', '4820584111998483'),
    at(text, 'IBAN', 'de71 8946'),
    at(text, 'IBAN', 'DE718946'),
  ]);
  t.equal(r.text, 'card [CREDIT_CARD_1] or [CREDIT_CARD_1] or [CREDIT_CARD_1]; iban [IBAN_1] and [IBAN_1]');
});

t.test('the same text found as two entity types gets a placeholder of each type', async (t) => {
  const text = '12345 and 12345';
  const r = redact(text, [at(text, 'US_SSN', '12345'), at(text, 'PHONE', '12345', 1)]);
  t.equal(r.text, '[US_SSN_1] and [PHONE_1]');
});

t.test('one Redactor shares the numbering across the texts of one request', async (t) => {
  const redactor = new Redactor();
  const prompt = 'Contact jo@acme.io about the invoice.';
  const attachment = 'From: max@acme.io\nTo: jo@acme.io';
  const field = 'max@acme.io';
  t.equal(redactor.redact(prompt, [at(prompt, 'EMAIL', 'jo@acme.io')]).text, 'Contact [EMAIL_1] about the invoice.');
  t.equal(
    redactor.redact(attachment, [at(attachment, 'EMAIL', 'max@acme.io'), at(attachment, 'EMAIL', 'jo@acme.io')]).text,
    'From: [EMAIL_2]\nTo: [EMAIL_1]',
  );
  t.equal(redactor.redact(field, [at(field, 'EMAIL', 'max@acme.io')]).text, '[EMAIL_2]');
  t.equal(redactor.placeholderFor('EMAIL', 'JO@acme.io'), '[EMAIL_1]');
  t.equal(new Redactor().redact(field, [at(field, 'EMAIL', 'max@acme.io')]).text, '[EMAIL_1]', 'a new request starts again');
});

t.test('overlapping findings are merged into one masked span named by the longest', async (t) => {
  const text = 'x 0123456789abcdef y';
  const a = { entity: 'PHONE', start: 2, end: 12 };
  const b = { entity: 'CREDIT_CARD', start: 6, end: 18 };
  t.same(redact(text, [a, b]), {
    text: 'x [CREDIT_CARD_1] y',
    replacements: [{ entity: 'CREDIT_CARD', placeholder: '[CREDIT_CARD_1]', start: 2, end: 18 }],
  });
  t.equal(redact(text, [b, { entity: 'EMAIL', start: 8, end: 10 }]).text, 'x 0123[CREDIT_CARD_1] y', 'nested');
  t.equal(redact(text, [a, { ...a, entity: 'IBAN' }]).text, 'x [PHONE_1]abcdef y', 'identical spans: one placeholder');
  t.equal(
    redact(text, [
      { entity: 'PHONE', start: 2, end: 6 },
      { entity: 'EMAIL', start: 6, end: 10 },
    ]).text,
    'x [PHONE_1][EMAIL_1]89abcdef y',
    'adjacent spans stay apart',
  );
});

t.test('no fragment of any found value survives, whatever the overlaps', async (t) => {
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  for (let round = 0; round < 300; round++) {
    const text = Array.from({ length: 40 }, () => 'abcdefghij'[rnd(10)]).join('');
    const findings: RedactSpan[] = Array.from({ length: 1 + rnd(5) }, () => {
      const start = rnd(39);
      return { entity: ['EMAIL', 'PHONE', 'IBAN'][rnd(3)]!, start, end: start + 1 + rnd(40 - start - 1) };
    });
    const covered = new Set<number>();
    for (const f of findings) for (let i = f.start; i < f.end; i++) covered.add(i);
    const r = redact(text, findings);
    const masked = new Set<number>();
    for (const x of r.replacements) for (let i = x.start; i < x.end; i++) masked.add(i);
    if (![...covered].every((i) => masked.has(i)) || masked.size !== covered.size) {
      t.fail(`round ${round}: masked ${[...masked]} but found ${[...covered]}`);
      return;
    }
    let rebuilt = '';
    let last = 0;
    for (const x of r.replacements) {
      rebuilt += text.slice(last, x.start) + x.placeholder;
      last = x.end;
    }
    if (rebuilt + text.slice(last) !== r.text) {
      t.fail(`round ${round}: output is not the input with spans replaced`);
      return;
    }
  }
  t.pass('300 random overlap patterns');
});

t.test('a span never cuts a surrogate pair in half', async (t) => {
  const text = 'id 😀abc😀 end';
  const r = redact(text, [{ entity: 'SECRET', start: 4, end: 9 }]);
  t.equal(r.text, 'id [SECRET_1] end');
  t.ok(!/[\ud800-\udfff]/.test(r.text));
});

t.test('entity names are made safe for a placeholder', async (t) => {
  t.equal(redact('k', [{ entity: 'aws-key', start: 0, end: 1 }]).text, '[AWS_KEY_1]');
});

t.test('offsets outside the text are a bug in the caller and throw', async (t) => {
  t.throws(() => redact('abc', [{ entity: 'EMAIL', start: 1, end: 4 }]), RangeError);
  t.throws(() => redact('abc', [{ entity: 'EMAIL', start: -1, end: 2 }]), RangeError);
  t.throws(() => redact('abc', [{ entity: 'EMAIL', start: 2, end: 2 }]), RangeError);
  t.throws(() => redact('abc', [{ entity: 'EMAIL', start: 0.5, end: 2 }]), RangeError);
});

t.test('pure: the findings passed in are not changed', async (t) => {
  const findings = [
    { entity: 'PHONE', start: 4, end: 8 },
    { entity: 'EMAIL', start: 0, end: 6 },
  ];
  const copy = JSON.parse(JSON.stringify(findings));
  redact('0123456789', findings);
  t.same(findings, copy);
});

t.test('with the pii detector: nothing it finds is left in the redacted text', async (t) => {
  const config = piiDetector.parseConfig(undefined);
  const text =
    'Jo (jo.lee@gmail.com, +49 30 12345678) pays with 4820 5841 1199 8483 to DE71 8946 9937 4713 3110 69; jo.lee@gmail.com again.';
  const r = redact(text, piiDetector.detect(text, config));
  t.equal(r.text, 'Jo ([EMAIL_1], [PHONE_1]) pays with [CREDIT_CARD_1] to [IBAN_1]; [EMAIL_1] again.');
  t.same(piiDetector.detect(r.text, config), []);
});
