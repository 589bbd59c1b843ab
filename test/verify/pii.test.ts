// Values below are synthetic: checksums computed by a generator written independently of the
// detector (Luhn, mod-97, MOD 11,10, ICAO 7-3-1, mod-11, mod-511), except the issuers' published
// examples, which are marked.
import t from 'tap';
import { parsePiiConfig, piiDetector, resolveOverlaps, type PiiConfig } from '../../daemon/verify/detectors/pii.js';
import type { Candidate } from '../../daemon/verify/detectors/pii/shared.js';

const DEFAULTS = parsePiiConfig(undefined);

/** The [entity, matched text] pairs found in `text`. */
function found(text: string, config: PiiConfig = DEFAULTS): Array<[string, string]> {
  return piiDetector.detect(text, config).map((f) => [f.entity, text.slice(f.start, f.end)]);
}
const one = (entity: string, value: string): Array<[string, string]> => [[entity, value]];

t.test('config: defaults, strictness, entity and country choice', async (t) => {
  t.same([...DEFAULTS.entities].length, 12);
  t.same(DEFAULTS.phoneCountries, ['US', 'GB', 'DE', 'FR']);
  t.equal(DEFAULTS.minScore, 0.5);
  t.throws(() => parsePiiConfig({ entitis: ['EMAIL'] }), 'unknown keys are refused');
  t.throws(() => parsePiiConfig({ entities: ['PASSPORT'] }));
  t.throws(() => parsePiiConfig({ entities: [] }));
  t.throws(() => parsePiiConfig({ phoneCountries: ['XX'] }));
  t.throws(() => parsePiiConfig({ minScore: 2 }));
  const onlyEmail = parsePiiConfig({ entities: ['EMAIL'] });
  t.same(found('mail jo.lee@gmail.com, card 4820 5841 1199 8483', onlyEmail), one('EMAIL', 'jo.lee@gmail.com'));
});

t.test('findings carry the detector name, offsets into the text and a score in [0, 1]', async (t) => {
  const text = 'Wire to DE71 8946 9937 4713 3110 69 and mail jo.lee@gmail.com.';
  const f = piiDetector.detect(text, DEFAULTS);
  t.same(f.map((x) => [x.detector, x.entity, x.rule]), [['pii', 'IBAN', 'iban-mod97'], ['pii', 'EMAIL', 'email']]);
  t.equal(text.slice(f[0]!.start, f[0]!.end), 'DE71 8946 9937 4713 3110 69');
  t.equal(f[0]!.score, 1, 'checksum-validated');
  t.ok(f.every((x) => x.score > 0 && x.score <= 1));
});

t.test('EMAIL: found, except RFC 2606 names, SSH remotes and URL user-info', async (t) => {
  t.same(found('Write to jürgen.müller@beispiel-firma.de.'), one('EMAIL', 'jürgen.müller@beispiel-firma.de'), 'trailing dot is not part of it');
  t.same(found('<A.B+tag@Mail.Co.UK>'), one('EMAIL', 'A.B+tag@Mail.Co.UK'));
  for (const reserved of ['a@example.com', 'a@EXAMPLE.ORG', 'a@mail.example.net', 'a@x.test', 'a@x.invalid', 'a@x.localhost', 'a@shop.example']) {
    t.same(found(`to ${reserved} now`), [], reserved);
  }
  t.same(found('a@myexample.com and b@example.co'), [['EMAIL', 'a@myexample.com'], ['EMAIL', 'b@example.co']], 'look-alikes of reserved names are real');
  t.same(found('git clone git@github.com:acme/app.git'), []);
  t.same(found('https://admin:pw@db.acme.io/x'), []);
  t.same(found('user@localhost, @scope/pkg, nginx@sha256:abc, x@y'), []);
});

t.test('PHONE: national forms of the configured countries, international of any', async (t) => {
  t.same(found('Call (415) 555-2671.'), one('PHONE', '(415) 555-2671'));
  t.same(found('Call 1-415-555-2671'), one('PHONE', '1-415-555-2671'));
  t.same(found('Call 41 555 52671'), [], 'NANP numbers are grouped 3-3-4');
  t.same(found('Rufen Sie 030 12345678 an'), one('PHONE', '030 12345678'));
  t.same(found('Rufen Sie 30 12345678 an'), [], 'a German number is written with its trunk 0');
  t.same(found('Portable 06 12 34 56 78'), one('PHONE', '06 12 34 56 78'));
  t.same(found('Tokyo office +81 3-1234-5678'), one('PHONE', '+81 3-1234-5678'));
  t.same(found('+44 (0)20 7946 0321 is the switchboard'), one('PHONE', '+44 (0)20 7946 0321'));
  t.same(found('Aus dem Ausland 0049 30 12345678'), one('PHONE', '0049 30 12345678'));
  t.same(found('+44 7700 900123'), [], 'Ofcom drama range, invalid by metadata');
  t.same(found('Tokyo office +81 3-1234-5678', parsePiiConfig({ internationalPhones: false })), [], 'only listed countries');
  t.same(found('Call (415) 555-2671.', parsePiiConfig({ phoneCountries: ['DE'] })), []);
  t.same(found('Ticket 4155552671 closed'), [], 'an unpunctuated number needs a context word');
  t.same(found('phone 4155552671'), one('PHONE', '4155552671'));
  t.same(found('on 2024-01-15 10:30 and 15.01.2024 and 12/31/2024'), [], 'dates');
  t.same(found('shipped from 81.2.69.160 at 10:30'), one('IP_ADDRESS', '81.2.69.160'), 'a dotted quad is not a phone');
});

t.test('CREDIT_CARD: issuer prefix and Luhn via validator, printed shapes, test cards', async (t) => {
  t.same(found('Visa 4820 5841 1199 8483 exp 12/25'), one('CREDIT_CARD', '4820 5841 1199 8483'), 'expiry is not swallowed');
  t.same(found('MC 5539-7671-0574-6856'), one('CREDIT_CARD', '5539-7671-0574-6856'));
  t.same(found('Amex 3409 167204 13000'), one('CREDIT_CARD', '3409 167204 13000'));
  t.same(found('Diners 36232258786638'), one('CREDIT_CARD', '36232258786638'));
  t.same(found('Visa 4820 5841 1199 8484'), [], 'Luhn failure');
  t.same(found('num 9366088093177388'), [], 'Luhn-valid but no issuer prefix');
  t.same(found('num 54127142097241835'), [], 'Mastercard prefix with 17 digits');
  t.same(found('EAN 4464547270805'), [], '13 digits: EAN-13 length, no longer issued as Visa');
  t.same(found('Visa 4820 584111998483'), [], 'not a printed card shape');
  t.same(found('Visa 4820.5841.1199.8483'), [], 'dots are not card separators');
  t.same(found('test card 4111 1111 1111 1111'), [], 'published test PAN passes by default');
  t.same(found('test card 4111 1111 1111 1111', parsePiiConfig({ redactTestCards: true })), one('CREDIT_CARD', '4111 1111 1111 1111'));
});

t.test('IBAN: ibantools validation of the printed or electronic form', async (t) => {
  t.same(found('IBAN DE71 8946 9937 4713 3110 69 BIC COBADEFFXXX'), one('IBAN', 'DE71 8946 9937 4713 3110 69'), 'the BIC is not swallowed');
  t.same(found('iban:FR7693544211750995546132962.'), one('IBAN', 'FR7693544211750995546132962'));
  t.same(found('konto gb19 barc 0825 9191 1376 89'), one('IBAN', 'gb19 barc 0825 9191 1376 89'));
  t.same(found('IBAN DE19 7831 1352 9652 6281 23'), [], 'mod-97 failure');
  t.same(found('IBAN DE71 8946 9937 4713 3110 6'), [], 'one digit short for DE');
  t.same(found('IBAN XX71 8946 9937 4713 3110 69'), [], 'no such country');
  t.same(found('IBAN DE71894699374713311069X'), [], 'glued to more text');
});

t.test('IP_ADDRESS: public addresses only by default, never documentation ranges', async (t) => {
  t.same(found('login from 81.2.69.160'), one('IP_ADDRESS', '81.2.69.160'));
  t.same(found('client 2a00:1450:4001:82a::200e.'), one('IP_ADDRESS', '2a00:1450:4001:82a::200e'));
  t.same(found('https://[2a00:1450:4001:82a::200e]:443/'), one('IP_ADDRESS', '2a00:1450:4001:82a::200e'));
  const priv = '10.1.2.3 172.16.0.9 192.168.1.1 127.0.0.1 100.64.0.1 169.254.1.1 fd12:3456::1 fe80::1';
  t.same(found(priv), []);
  t.same(found(priv, parsePiiConfig({ privateIps: true })).length, 8);
  t.same(found('192.0.2.1 198.51.100.7 203.0.113.9 2001:db8::1 0.0.0.0 255.255.255.255 224.0.0.1', parsePiiConfig({ privateIps: true })), []);
  t.same(found('version 1.2.3.4, section 4.2.1.1, v 8.8.8.8'), [], 'version and section numbers');
  t.same(found('01.2.3.4 and 256.1.1.1 and 1.2.3.4.5'), []);
  t.same(found('std::vector a::b 12:30:45 00:1A:2B:3C:4D:5E'), []);
});

t.test('US_SSN: SSA allocation rules; no checksum exists, so bare digits need context', async (t) => {
  t.same(found('SSN 216-66-4430'), one('US_SSN', '216-66-4430'));
  t.same(found('employee 216 66 4430 hired'), one('US_SSN', '216 66 4430'));
  for (const bad of ['000-66-4430', '666-66-4430', '900-66-4430', '999-66-4430', '216-00-4430', '216-66-0000', '078-05-1120', '123-45-6789', '111-11-1111']) {
    t.same(found(`SSN ${bad}`), [], bad);
  }
  t.same(found('number 216664430'), []);
  t.same(found('social security number 216664430'), one('US_SSN', '216664430'));
  t.same(found('order 216-66-4430'), [], 'negative context');
});

t.test('UK_NINO: HMRC prefix rules (validator plus BG, KN, NT), suffix A-D', async (t) => {
  t.same(found('NINO AB 12 34 56 C'), one('UK_NINO', 'AB 12 34 56 C'));
  t.same(found('employee JG103759A'), one('UK_NINO', 'JG103759A'));
  for (const prefix of ['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ', 'DA', 'FA', 'QA', 'AO', 'AD']) {
    t.same(found(`NINO ${prefix}123456A`), [], prefix);
  }
  t.same(found('code JG103759 shipped'), [], 'without its suffix the shape needs context');
  t.same(found('national insurance JG103759'), one('UK_NINO', 'JG103759'));
  t.same(found('nino jg103759a'), [], 'printed upper case only');
});

t.test('UK_NHS: mod-11 check digit, context required', async (t) => {
  t.same(found('NHS number 943 476 5919'), one('UK_NHS', '943 476 5919'), 'NHS Digital published example');
  t.same(found('patient 5336508543'), one('UK_NHS', '5336508543'));
  t.same(found('NHS number 943 476 5918'), [], 'wrong check digit');
  t.same(found('NHS number 5624696230'), [], 'check value 10 is never issued');
  t.same(found('NHS number 1111111111'), []);
  t.same(found('account 943 476 5919 closed'), []);
});

t.test('DE_TAX_ID: validator de-DE (ISO 7064 MOD 11,10 and the repeated-digit rule)', async (t) => {
  t.same(found('Steuer-ID 54307219824'), one('DE_TAX_ID', '54307219824'));
  t.same(found('IdNr 54 307 219 824'), one('DE_TAX_ID', '54 307 219 824'));
  t.same(found('Steuer-ID 54307219825'), [], 'wrong check digit');
  t.same(found('Steuer-ID 43285917605'), [], 'no digit repeated in the first ten');
  t.same(found('Steuer-ID 01234567812'), [], 'leading zero');
  t.same(found('Bestellnummer 54307219824'), [], 'negative context');
});

t.test('DE_ID_CARD: ICAO 9303 check digit over the serial, context required', async (t) => {
  t.same(found('Personalausweis R35W899T33'), one('DE_ID_CARD', 'R35W899T33'));
  t.same(found('Personalausweis R35W899T34'), [], 'wrong check digit');
  t.same(found('Ausweis AL01X00T40'), [], 'vowels are never used');
  t.same(found('Seriennummer R35W899T33'), [], 'no context');
  t.same(found('Personalausweis T22000129'), [], 'nine characters: nothing to validate');
});

t.test('FR_NIR: INSEE key 97 - n mod 97, Corsica 2A/2B as 19/18', async (t) => {
  t.same(found('NIR 2 55 08 14 168 025 38'), one('FR_NIR', '2 55 08 14 168 025 38'), 'INSEE example as published');
  t.same(found('sécu 298071860930412'), one('FR_NIR', '298071860930412'));
  t.same(found('sécu 2 89 12 2A 996 373 79'), one('FR_NIR', '2 89 12 2A 996 373 79'));
  t.same(found('sécu 178112B04512368'), one('FR_NIR', '178112B04512368'));
  t.same(found('sécu 178112A04512368'), [], '2A and 2B keys differ');
  t.same(found('sécu 2 55 08 14 168 025 39'), [], 'wrong key');
  t.same(found('sécu 2 55 13 14 168 025 38'), [], 'month 13');
  t.same(found('sécu 5 55 08 14 168 025 38'), [], 'sex digit 5');
});

t.test('FR_TAX_ID: validator fr-FR (SPI, key = first ten digits mod 511)', async (t) => {
  t.same(found('numéro fiscal 0606661566322'), one('FR_TAX_ID', '0606661566322'));
  t.same(found('numéro fiscal 06 06 661 566 322'), one('FR_TAX_ID', '06 06 661 566 322'));
  t.same(found('numéro fiscal 0606661566323'), [], 'wrong key');
  t.same(found('numéro fiscal 4606661566322'), [], 'first digit above 3');
  t.same(found('commande 0606661566322'), [], 'negative context');
});

t.test('overlaps: longest wins, then the more specific entity', async (t) => {
  const c = (entity: Candidate['entity'], start: number, end: number): Candidate => ({ entity, start, end, score: 0.9, rule: 'x' });
  t.same(resolveOverlaps([c('PHONE', 0, 10), c('CREDIT_CARD', 0, 19), c('EMAIL', 25, 30)]), [c('CREDIT_CARD', 0, 19), c('EMAIL', 25, 30)]);
  t.same(resolveOverlaps([c('PHONE', 5, 17), c('UK_NHS', 5, 17)]), [c('UK_NHS', 5, 17)]);
  t.same(resolveOverlaps([c('PHONE', 10, 20), c('IP_ADDRESS', 0, 5)]), [c('IP_ADDRESS', 0, 5), c('PHONE', 10, 20)], 'sorted by start');
  t.same(found('NHS 943 476 5919'), one('UK_NHS', '943 476 5919'), 'also a valid NANP number; NHS wins');
});

