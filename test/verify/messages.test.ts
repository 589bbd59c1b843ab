// The reason catalogues: every locale has exactly the English keys, with the same placeholders.
import t from 'tap';
import { catalogKeys, message } from '../../daemon/verify/messages.js';

const placeholders = (text: string): string[] => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).sort();

t.test('de and fr have every English reason key and no other, each with the same placeholders', async (t) => {
  const en = catalogKeys('en').sort();
  t.ok(en.length > 0);
  for (const locale of ['de', 'fr'] as const) {
    t.same(catalogKeys(locale).sort(), en, `${locale}: the same keys as English`);
    for (const key of en)
      t.same(placeholders(message(locale, key)), placeholders(message('en', key)), `${locale} ${key}: the same placeholders`);
  }
});

t.test('placeholders are filled; a missing parameter stays visible rather than vanishing', async (t) => {
  t.equal(message('en', 'reason.BLOCKED', { policy: 'pii' }), 'Blocked by policy "pii".');
  t.equal(message('en', 'reason.BLOCKED'), 'Blocked by policy "{policy}".');
  t.equal(message('de', 'reason.no_such_key'), 'reason.no_such_key', 'an unknown key answers with itself');
});
