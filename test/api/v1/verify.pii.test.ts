// The PII types added for Spanish, Italian, Dutch and Polish texts (national ids, passports,
// short cards, Canadian phones with extensions, IPv6), end to end: in a MODIFIED answer no value
// the detector claimed survives in `output`. Values are synthetic, with valid check characters.
import t from 'tap';
import { startTestGateway } from '../../helpers/gateway.js';

const CASES: ReadonlyArray<{ lang: string; prompt: string; values: readonly string[] }> = [
  {
    lang: 'es',
    prompt:
      'Hola, soy Javier Ortega. Mi DNI es 48291735S y el de mi esposa, extranjera, es el NIE X4829173R. '
      + 'Número de pasaporte: PAA123456. Llámame al 612 345 678 o a la oficina, +34 912 34 56 78 ext. 15. '
      + 'Pagué con la tarjeta 6759 6499 8321 desde la IP 2a02:9130:8a4c:1e00:5d3b:77ff:fe10:42aa.',
    values: [
      '48291735S',
      'X4829173R',
      'PAA123456',
      '612 345 678',
      '912 34 56 78',
      '6759 6499 8321',
      '2a02:9130:8a4c:1e00:5d3b:77ff:fe10:42aa',
    ],
  },
  {
    lang: 'it',
    prompt:
      'Buongiorno, il mio codice fiscale è RSSMRA85T10A562S e il numero di passaporto YA1234567. '
      + 'Chiamami al 333 123 4567 oppure in ufficio al +39 02 1234 5678 int. 22. '
      + "L'IBAN è IT60 X054 2811 1010 0000 0123 456; la carta 4291 8374 6529 4 è stata rifiutata.",
    values: ['RSSMRA85T10A562S', 'YA1234567', '333 123 4567', '02 1234 5678', 'IT60 X054', '4291 8374 6529 4'],
  },
  {
    lang: 'nl',
    prompt:
      'Goedemiddag, mijn BSN is 111222333 en mijn paspoortnummer NP1234567. Bel me op 06-12345678 '
      + 'of op kantoor 020 123 4567 toestel 45. Betaald met creditcard 5018 3746 2917 vanaf IP-adres 2a01:7c8:aab5:41e::1.',
    values: ['111222333', 'NP1234567', '06-12345678', '020 123 4567', '5018 3746 2917', '2a01:7c8:aab5:41e::1'],
  },
  {
    lang: 'pl',
    prompt:
      'Dzień dobry, mój PESEL to 85031412347, numer paszportu: EA1234567. Proszę dzwonić pod numer 512 345 678 '
      + 'albo do biura +48 22 123 45 67 wewn. 301. Płatność kartą 5893 8273 6413 z adresu 2a00:f41:1c8d:7e00::35.',
    values: ['85031412347', 'EA1234567', '512 345 678', '22 123 45 67', '5893 8273 6413', '2a00:f41:1c8d:7e00::35'],
  },
  {
    lang: 'en',
    prompt: 'Call our Toronto office at (416) 979-3412 x036 or Mississauga 905-271-8364 ext. 12; Visa 4539201765446 on file.',
    values: ['979-3412', 'x036', '271-8364', 'ext. 12', '4539201765446'],
  },
];

t.test('MODIFIED: none of the new PII values remains in output, in any of the languages', async (t) => {
  const gw = await startTestGateway(t);
  for (const c of CASES) {
    const res = await gw.api('POST', '/api/v1/verify', { body: { prompt: c.prompt } });
    t.equal(res.status, 200, c.lang);
    t.equal(res.body.decision, 'MODIFIED', c.lang);
    const output = res.body.output as string;
    for (const v of c.values) t.notOk(output.includes(v), `${c.lang}: ${v} is not in the output`);
    // Digits of the claimed values do not survive either: no run of five digits remains.
    t.notMatch(output, /\d{5}/, `${c.lang}: no long digit run remains`);
    t.match(output, /\[[A-Z_]+_1\]/, `${c.lang}: typed placeholders`);
  }
});
