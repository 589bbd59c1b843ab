// Values below are synthetic: checksums computed by a generator written independently of the
// detector (Luhn, mod-97, MOD 11,10, ICAO 7-3-1, mod-11, mod-511), except the issuers' published
// examples, which are marked.
import t from 'tap';
import { parsePiiConfig, piiDetector, resolveOverlaps, type PiiConfig } from '../../daemon/detectors/pii/index.js';
import type { Candidate } from '../../daemon/detectors/pii/shared.js';

const DEFAULTS = parsePiiConfig(undefined);

/** The [entity, matched text] pairs found in `text`. */
function found(text: string, config: PiiConfig = DEFAULTS): Array<[string, string]> {
  return piiDetector.detect(text, config).map((f) => [f.entity, text.slice(f.start, f.end)]);
}
const one = (entity: string, value: string): Array<[string, string]> => [[entity, value]];

t.test('config: defaults, strictness, entity and country choice', async (t) => {
  t.same([...DEFAULTS.entities].length, 18);
  t.same(DEFAULTS.phoneCountries, ['US', 'GB', 'DE', 'FR', 'ES', 'IT', 'NL', 'PL']);
  t.equal(DEFAULTS.minScore, 0.5);
  t.throws(() => parsePiiConfig({ entitis: ['EMAIL'] }), 'unknown keys are refused');
  t.throws(() => parsePiiConfig({ entities: ['SHOE_SIZE'] }));
  t.throws(() => parsePiiConfig({ entities: [] }));
  t.throws(() => parsePiiConfig({ phoneCountries: ['XX'] }));
  t.throws(() => parsePiiConfig({ minScore: 2 }));
  const onlyEmail = parsePiiConfig({ entities: ['EMAIL'] });
  t.same(found('mail jo.lee@gmail.com, card 4820 5841 1199 8483', onlyEmail), one('EMAIL', 'jo.lee@gmail.com'));
});

t.test('findings carry the detector name, offsets into the text and a score in [0, 1]', async (t) => {
  const text = 'Wire to DE71 8946 9937 4713 3110 69 and mail jo.lee@gmail.com.';
  const f = piiDetector.detect(text, DEFAULTS);
  t.same(
    f.map((x) => [x.detector, x.entity, x.rule]),
    [
      ['pii', 'IBAN', 'iban-mod97'],
      ['pii', 'EMAIL', 'email'],
    ],
  );
  t.equal(text.slice(f[0]!.start, f[0]!.end), 'DE71 8946 9937 4713 3110 69');
  t.equal(f[0]!.score, 1, 'checksum-validated');
  t.ok(f.every((x) => x.score > 0 && x.score <= 1));
});

t.test('EMAIL: found, except RFC 2606 names, SSH remotes and URL user-info', async (t) => {
  t.same(
    found('Write to jürgen.müller@beispiel-firma.de.'),
    one('EMAIL', 'jürgen.müller@beispiel-firma.de'),
    'trailing dot is not part of it',
  );
  t.same(found('<A.B+tag@Mail.Co.UK>'), one('EMAIL', 'A.B+tag@Mail.Co.UK'));
  for (const reserved of [
    'a@example.com',
    'a@EXAMPLE.ORG',
    'a@mail.example.net',
    'a@x.test',
    'a@x.invalid',
    'a@x.localhost',
    'a@shop.example',
  ]) {
    t.same(found(`to ${reserved} now`), [], reserved);
  }
  t.same(
    found('a@myexample.com and b@example.co'),
    [
      ['EMAIL', 'a@myexample.com'],
      ['EMAIL', 'b@example.co'],
    ],
    'look-alikes of reserved names are real',
  );
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
  t.same(
    found('192.0.2.1 198.51.100.7 203.0.113.9 2001:db8::1 0.0.0.0 255.255.255.255 224.0.0.1', parsePiiConfig({ privateIps: true })),
    [],
  );
  t.same(found('version 1.2.3.4, section 4.2.1.1, v 8.8.8.8'), [], 'version and section numbers');
  t.same(found('01.2.3.4 and 256.1.1.1 and 1.2.3.4.5'), []);
  t.same(found('std::vector a::b 12:30:45 00:1A:2B:3C:4D:5E'), []);
});

t.test('US_SSN: SSA allocation rules; no checksum exists, so bare digits need context', async (t) => {
  t.same(found('SSN 216-66-4430'), one('US_SSN', '216-66-4430'));
  t.same(found('employee 216 66 4430 hired'), one('US_SSN', '216 66 4430'));
  for (const bad of [
    '000-66-4430',
    '666-66-4430',
    '900-66-4430',
    '999-66-4430',
    '216-00-4430',
    '216-66-0000',
    '078-05-1120',
    '123-45-6789',
    '111-11-1111',
  ]) {
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

t.test('PHONE: the whole NANP, not only the US (Canadian area codes)', async (t) => {
  for (const n of ['(905) 271-8364', '416-979-3412', '780.492.3111', '604 822 2211', '1-905-271-8364']) {
    t.same(found(`Call ${n} today`), one('PHONE', n), n);
  }
  t.same(found('Toronto +1 416 979 3412'), one('PHONE', '+1 416 979 3412'), 'international form');
  t.same(found('Call 905 27 18364'), [], 'still grouped 3-3-4');
  t.same(found('Ticket 4169793412 closed'), [], 'still needs a word when unpunctuated');
  t.same(found('Call (905) 171-8364'), [], 'exchange codes never start with 1');
});

t.test('PHONE: an extension is part of the number', async (t) => {
  const cases: Array<[string, string]> = [
    ['Call (416) 979-3412 x036 please', '(416) 979-3412 x036'],
    ['Call (416) 979-3412x036.', '(416) 979-3412x036'],
    ['Office 905-271-8364 ext. 12', '905-271-8364 ext. 12'],
    ['Office 905-271-8364, extension 1234', '905-271-8364, extension 1234'],
    ['Zentrale 030 12345678 Durchwahl 34', '030 12345678 Durchwahl 34'],
    ['Standard 01 42 68 53 00 poste 215', '01 42 68 53 00 poste 215'],
    ['Oficina +34 912 34 56 78 ext. 15', '+34 912 34 56 78 ext. 15'],
    ['Ufficio +39 02 1234 5678 int. 22', '+39 02 1234 5678 int. 22'],
    ['Kantoor 020 123 4567 toestel 45', '020 123 4567 toestel 45'],
    ['Biuro +48 22 123 45 67 wewn. 301', '+48 22 123 45 67 wewn. 301'],
  ];
  for (const [text, value] of cases) t.same(found(text), one('PHONE', value), value);
  t.same(found('Call (416) 979-3412 xylophone'), one('PHONE', '(416) 979-3412'), 'x starting a word is no extension');
  t.same(found('Call (416) 979-3412 extra 5'), one('PHONE', '(416) 979-3412'));
});

t.test('PHONE: Spanish, Italian, Dutch and Polish national and international forms', async (t) => {
  const cases: Array<[string, string]> = [
    ['Llámame al 612 345 678.', '612 345 678'],
    ['Teléfono: 912 34 56 78', '912 34 56 78'],
    ['Teléfono +34 612 345 678', '+34 612 345 678'],
    ['Chiamami al 333 123 4567', '333 123 4567'],
    ['Ufficio 06 4567 8901', '06 4567 8901'],
    ['Cellulare +39 347 765 4321', '+39 347 765 4321'],
    ['Bel me op 06-12345678', '06-12345678'],
    ['Kantoor 020 123 4567', '020 123 4567'],
    ['Telefoon +31 20 123 4567', '+31 20 123 4567'],
    ['Proszę dzwonić pod numer 512 345 678', '512 345 678'],
    ['Telefon 22 123 45 67', '22 123 45 67'],
    ['Komórka +48 601 234 567', '+48 601 234 567'],
  ];
  for (const [text, value] of cases) t.same(found(text), one('PHONE', value), value);
  // Without a trunk prefix, 3-3-3 is also how these languages group thousands: a word must say phone.
  for (const amount of [
    'El presupuesto es de 612 345 678 euros.',
    'Il fatturato è di 333 123 456 euro.',
    'Budżet wynosi 512 345 678 zł.',
    'Population 612.345.678',
  ]) {
    t.same(found(amount), [], amount);
  }
  t.same(found('ISSN 0317-8471'), [], 'an Italian-length landline needs nine digits');
  t.same(found('Matrix [1 2 3 4 5 6 7 8 9]'), []);
  t.same(found('Pedido 612 345 678 enviado'), [], 'Spanish negative context');
  t.same(found('Ordine 333 123 4567 spedito'), [], 'Italian negative context');
  t.same(found('Zamówienie 512 345 678 wysłane'), [], 'Polish negative context');
  t.same(found('Call 612 345 678', parsePiiConfig({ phoneCountries: ['US'] })), [], 'only configured countries');
  t.same(found('Mi celular es 612345678'), one('PHONE', '612345678'), 'unpunctuated with a word');
  t.same(found('Contáctame en el 612 345 678'), one('PHONE', '612 345 678'));
  t.same(found('Le envío mi DNI 48291735S'), one('ES_DNI', '48291735S'), '"envío" (I send) is no shipment word');
  t.same(found('Je kunt me bereiken op 0612345678'), one('PHONE', '0612345678'));
  t.same(found('Skontaktuj się: 512345678'), one('PHONE', '512345678'));
  t.same(found('Contattami al 3331234567'), one('PHONE', '3331234567'));
  t.same(found('Rif. 612345678 e 3331234567'), [], 'unpunctuated without a word');
});

t.test('CREDIT_CARD: 12- and 13-digit cards need an issuer prefix, Luhn and a card word (or Maestro grouped in fours)', async (t) => {
  t.same(found('Maestro 6759 6499 8321'), one('CREDIT_CARD', '6759 6499 8321'));
  t.same(found('value 5018 3746 2917 logged'), one('CREDIT_CARD', '5018 3746 2917'), 'Maestro prefix grouped in fours');
  t.same(found('Visa 4291 8374 6529 4'), one('CREDIT_CARD', '4291 8374 6529 4'));
  t.same(found('value 4291 8374 6529 4 logged'), [], 'a grouped Visa-prefixed number needs a word: 1 in 100 passes');
  t.same(found('Pago con 4539201765446'), one('CREDIT_CARD', '4539201765446'), 'payment word');
  t.same(found('card number 4539201765446'), one('CREDIT_CARD', '4539201765446'));
  t.same(found('Kreditkarte 630412345674'), one('CREDIT_CARD', '630412345674'));
  t.same(found('carte 4539201765446'), one('CREDIT_CARD', '4539201765446'));
  t.same(found('tarjeta 675964998321'), one('CREDIT_CARD', '675964998321'));
  t.same(found('carta 675964998321'), one('CREDIT_CARD', '675964998321'));
  t.same(found('kaart 675964998321'), one('CREDIT_CARD', '675964998321'));
  t.same(found('kartą 675964998321'), one('CREDIT_CARD', '675964998321'));
  t.same(found('number 4539201765446 logged'), [], 'bare and no word: 1 in 100 13-digit numbers passes');
  t.same(found('card 4539201765447'), [], 'Luhn failure');
  t.same(found('card 9539201765442'), [], 'Luhn failure, no issuer prefix');
  t.same(found('card 9539201765441'), one('CREDIT_CARD', '9539201765441'), 'Luhn-valid, no issuer prefix, right after a card label');
  t.same(found('card 123456789015'), one('CREDIT_CARD', '123456789015'), 'Luhn-valid 12 digits right after a card label');
  t.same(found('Kartennummer: 123456789015'), one('CREDIT_CARD', '123456789015'));
  t.same(found('value 9539201765441 logged'), [], 'no issuer prefix and no label');
  t.same(found('the card game sold 123456789015 copies'), [], 'a card word with other words between is no label');
  t.same(found('card 123456789016'), [], 'labelled, Luhn failure');
  t.same(found('card 6759 6499 8322'), [], 'grouped, Luhn failure');
  t.same(found('EAN 4539201765446'), [], 'negative context');
  t.same(found('Build 4539 2017 6544 6 shipped'), [], 'negative context beats the shape');
  t.same(found('card 6759 6499 8321 7777'), [], 'twelve digits cut from a longer number are no card');
  t.same(found('card 4820 5841 1199 8483'), one('CREDIT_CARD', '4820 5841 1199 8483'), 'the 16-digit card, not its first 12');
});

t.test('IP_ADDRESS: IPv6 full, compressed and with an embedded IPv4', async (t) => {
  t.same(found('from 2600:1700:5a0:e8f0:1d4c:b2ff:fe3a:91c7 today'), one('IP_ADDRESS', '2600:1700:5a0:e8f0:1d4c:b2ff:fe3a:91c7'));
  t.same(found('from 2001:4860:4860::8888'), one('IP_ADDRESS', '2001:4860:4860::8888'));
  t.same(found('from 2A00:F41:1C8D:7E00::35'), one('IP_ADDRESS', '2A00:F41:1C8D:7E00::35'), 'upper case');
  t.same(found('seen ::ffff:81.2.69.142 twice'), one('IP_ADDRESS', '::ffff:81.2.69.142'), 'v4-mapped, public v4');
  t.same(found('via 64:ff9b::81.2.69.142'), one('IP_ADDRESS', '64:ff9b::81.2.69.142'), 'NAT64');
  t.same(found('0:0:0:0:0:ffff:81.2.69.142'), one('IP_ADDRESS', '0:0:0:0:0:ffff:81.2.69.142'));
  t.same(
    found('address e3c5:9d2f:4a1b:77c0:1e2d:3f4a:5b6c:7d8e'),
    one('IP_ADDRESS', 'e3c5:9d2f:4a1b:77c0:1e2d:3f4a:5b6c:7d8e'),
    'outside 2000::/3, full form',
  );
  t.same(found('::ffff:192.168.1.1 and ::ffff:192.0.2.1'), [], 'v4-mapped private and documentation');
  t.same(found('::1 and :: and a::b and dead::beef and face:b00c::1'), [], 'short compressed forms outside 2000::/3');
  t.same(found('at 12:30:45, 23:59:59.999 and 1:2:3'), [], 'times');
  t.same(found('MAC 00:1A:2B:3C:4D:5E and EUI-64 00:1a:2b:ff:fe:3c:4d:5e'), [], 'MAC and EUI-64 addresses are not reported');
  t.same(found('ff02::1:ff00:1234 and 2001:db8:85a3::8a2e:370:7334'), [], 'multicast and documentation');
  t.same(found('versión 81.2.69.160, versione 81.2.69.160, versie 81.2.69.160, wersja 81.2.69.160'), [], 'version words in ES/IT/NL/PL');
});

t.test('ES_DNI and ES_NIE: mod-23 control letter', async (t) => {
  t.same(found('Mi DNI es 48291735S.'), one('ES_DNI', '48291735S'));
  t.same(found('DNI 07264519-S'), one('ES_DNI', '07264519-S'));
  t.same(found('NIE X4829173R'), one('ES_NIE', 'X4829173R'));
  t.same(found('NIE Y2817364Q y Z1928374J'), [
    ['ES_NIE', 'Y2817364Q'],
    ['ES_NIE', 'Z1928374J'],
  ]);
  t.same(found('My ID number is 48291735S'), one('ES_DNI', '48291735S'), 'English text');
  t.same(found('DNI 48.291.735-S'), one('ES_DNI', '48.291.735-S'), 'thousands dots');
  t.same(found('NIE X-4829173-R'), one('ES_NIE', 'X-4829173-R'));
  t.same(found('DNI 48.291.735-T'), [], 'wrong letter, dotted');
  t.same(found('DNI 48291735T'), [], 'wrong letter');
  t.same(found('NIE X4829173S'), [], 'wrong letter');
  t.same(found('NIE W4829173R'), [], 'no such prefix');
  t.same(found('code 48291735s'), [], 'lower case without a word');
  t.same(found('dni 48291735s'), one('ES_DNI', '48291735s'));
  t.same(found('Pedido 48291735S enviado'), [], 'negative context');
  t.same(found('hash a48291735S'), [], 'glued to a word');
});

t.test('IT_FISCAL_CODE: shape and check character, omocodia', async (t) => {
  t.same(found('Codice fiscale RSSMRA85T10A562S.'), one('IT_FISCAL_CODE', 'RSSMRA85T10A562S'), 'the ministry example');
  t.same(found('CF: bncgli90a41f205h'), one('IT_FISCAL_CODE', 'bncgli90a41f205h'), 'case-insensitive');
  t.same(found('tax code VRDLCU78M12H501J'), one('IT_FISCAL_CODE', 'VRDLCU78M12H501J'));
  t.same(found('omocodia RSSMRA85T10A56NH'), one('IT_FISCAL_CODE', 'RSSMRA85T10A56NH'));
  t.same(found('Codice fiscale RSSMRA85T10A562T'), [], 'wrong check character');
  t.same(found('Codice fiscale RSSMRA85Z10A562S'), [], 'no such month letter');
  t.same(found('ABCDEFGHIJKLMNOP and RSSMRA85T10A562SX'), [], 'no shape, or glued');
});

t.test('NL_BSN: 11-proef, and a word that says BSN', async (t) => {
  t.same(found('Mijn BSN is 111222333.'), one('NL_BSN', '111222333'));
  t.same(found('Burgerservicenummer: 2738.19.458'), one('NL_BSN', '2738.19.458'));
  t.same(found('citizen service number 491 827 362'), one('NL_BSN', '491 827 362'));
  t.same(found('BSN 111222334'), [], 'fails the 11-proef');
  t.same(found('BSN 999999999'), [], 'repeated digit');
  t.same(found('Bestelnummer 111222333 is verzonden'), [], 'no BSN word');
  t.same(found('nummer 273819458'), [], 'one in eleven 9-digit numbers passes: no word, no finding');
});

t.test('PL_PESEL: check digit and a real birth date', async (t) => {
  t.same(found('PESEL 85031412347'), one('PL_PESEL', '85031412347'));
  t.same(found('Mój numer 92110256783'), one('PL_PESEL', '92110256783'));
  t.same(found('PESEL 01250743217'), one('PL_PESEL', '01250743217'), 'born in 2001: month + 20');
  t.same(found('PESEL 85031412348'), [], 'wrong check digit');
  t.same(found('PESEL 85133012342'), [], 'month 13');
  t.same(found('PESEL 85023012340'), [], '30 February');
  t.same(found('Zamówienie nr 85031412347'), [], 'negative context');
  t.same(found('number 50431412347'), [], 'born in 2150: valid, but bare it needs the word');
  t.same(found('PESEL 50431412347'), one('PL_PESEL', '50431412347'));
  t.same(found('number 99831412348'), [], 'born in 1899');
});

t.test('PASSPORT: a number after the word passport, in every supported language', async (t) => {
  const cases: Array<[string, string]> = [
    ['Passport number: 533380006, issued 2019.', '533380006'],
    ['my passport no. C01X00T47', 'C01X00T47'],
    ['Reisepassnummer C01X00T47', 'C01X00T47'],
    ['Mein Reisepass: C01X00T47', 'C01X00T47'],
    ['Numéro de passeport : 09AA12345', '09AA12345'],
    ['Número de pasaporte PAA123456', 'PAA123456'],
    ['Numero di passaporto YA1234567', 'YA1234567'],
    ['Paspoortnummer NP1234567', 'NP1234567'],
    ['Mijn paspoort heeft nummer XN0018B13', 'XN0018B13'],
    ['Numer paszportu: EA1234567', 'EA1234567'],
  ];
  for (const [text, value] of cases) t.same(found(text), one('PASSPORT', value), value);
  t.same(found('passport: DE1234567'), one('PASSPORT', 'DE1234567'), 'a filler word does not eat the number');
  t.same(found('Pass Nr. C01X00T47'), one('PASSPORT', 'C01X00T47'));
  t.same(found('Pass the salt, 1234567 times'), [], 'pass alone is not passport');
  t.same(found('pasaporte n.º PAA123456'), one('PASSPORT', 'PAA123456'));
  t.same(found('passaporto n. YA1234567'), one('PASSPORT', 'YA1234567'));
  t.same(found('passport N12345678'), one('PASSPORT', 'N12345678'), 'a number starting with N');
  t.same(found('Il passaporto di Laura è il numero YB7391028.'), one('PASSPORT', 'YB7391028'), 'words in between');
  t.same(found('My passport is at home. Then ABC123456 arrived.'), [], 'not past the end of the sentence');
  t.same(found('passport valid until 2029, booked'), [], 'a year is not a number');
  t.same(found('Passport expires 2029'), [], 'a year');
  t.same(found('passport photo ABCDEFG'), [], 'no digits');
  t.same(found('the passport office, 12 Main St'), []);
  t.same(found('Ticket C01X00T47'), [], 'no passport word');
  t.same(found('passportless C01X00T47'), [], 'part of another word');
});

t.test('PHONE: a number right after a phone label, in national formats without a country code, in every language', async (t) => {
  for (const [text, number] of [
    ['Phone: 555 0142', '555 0142'],
    ['Tel.: 40-12-33-87', '40-12-33-87'],
    ['Phone number: (31) 206-517', '(31) 206-517'],
    ['Téléphone : 01.23.45.67.89', '01.23.45.67.89'],
    ['Telefon: 0341 / 22 90 17', '0341 / 22 90 17'],
    ['Telefonnummer (privat): 88 41 27 3', '88 41 27 3'],
    ['Teléfono: 418 27 36', '418 27 36'],
    ['Mi número de teléfono es 418 27 36', '418 27 36'],
    ['Telefono (ufficio): (06) 4471-882', '(06) 4471-882'],
    ['Telefoon: 44 87 12 9', '44 87 12 9'],
    ['tel. kom.: 601-418-273', '601-418-273'],
    ['Nr tel.: 418 27 36', '418 27 36'],
    ['Tel./Fax: 40 18 77 21', '40 18 77 21'],
  ] as const) {
    t.same(found(text), one('PHONE', number), text);
  }
  t.same(found('Tel.: 12.03.2024'), [], 'a calendar date after a label is still a date');
  t.same(found('Tel.: 10.0.4.17'), [], 'a dotted quad (a private address, not reported) is not a phone');
  for (const text of [
    'Order 40-12-33-87 shipped, version 3.2.1',
    'The phone costs 1 299 dollars and ships with 128 GB.',
    'Die Telefonkosten stiegen um 1 418 277 Euro.',
    'Le téléphone a été vendu à 12 345 exemplaires.',
    'my phone broke in 2023 and 40-12-33-87 is the repair order',
    'Tel Aviv office: 140 staff since 2019',
  ])
    t.same(found(text), [], text);
});

t.test('PHONE: +1 (NNN) NNN-NNNN is a NANP number by its format alone', async (t) => {
  t.same(found('reach me at +1 (303) 044-1187 today'), one('PHONE', '+1 (303) 044-1187'), 'exchange 044 is unassigned: still a number');
  t.same(found('or 001-303-044-1187'), one('PHONE', '001-303-044-1187'));
  t.same(found('+1 (303) 044-118'), [], 'one digit short');
});

t.test('CREDIT_CARD: Maestro numbers of 12 to 19 digits grouped with dashes or spaces', async (t) => {
  for (const card of [
    '5018-5260-1811',
    '6759 0824 6282',
    '5020 5908 3016 6133',
    '6304-1860-9139-0996-036',
    '0604 8657 9752',
    '5612 1948 2198',
  ])
    t.same(found(`paid with ${card} yesterday`), one('CREDIT_CARD', card), card);
  t.same(found('Ticket 5612-1948-2198 closed; card issue was a UI bug.'), [], 'a negative label right before beats a card word after');
  t.same(found('paid with 5612 1948 2199 yesterday'), [], 'Luhn failure');
});
