// Payment data. Cards: validator's isCreditCard (issuer prefix + Luhn) on digit runs printed the
// way cards are printed. IBANs: ibantools (country length, BBAN format, mod-97) on the electronic
// form of a candidate that may be printed in groups of four.
//
// Well-known test card numbers (published by payment processors for sandboxes and quoted in API
// documentation) pass by default: no person holds them and redacting them breaks every developer
// prompt about payments. `redactTestCards: true` treats them like any other card.
import validator from 'validator';
import { getCountrySpecifications, isValidIBAN } from 'ibantools';
import type { Candidate, DigitRun, GroupSlice, ScanOptions } from './shared.js';
import { contextScore, isWordChar, LABEL_TAIL, labelledBefore, NEGATIVE_LABEL, sameLengths, scanSlices, uniformSeps } from './shared.js';

export const TEST_CARDS: ReadonlySet<string> = new Set([
  '4111111111111111',
  '4242424242424242',
  '4012888888881881',
  '4222222222222',
  '4000056655665556',
  '4000000000000002',
  '4000000000000077',
  '4000000000009995',
  '4000002500003155',
  '4005519200000004',
  '5555555555554444',
  '5105105105105100',
  '5200828282828210',
  '2223003122003222',
  '5431111111111111',
  '378282246310005',
  '371449635398431',
  '378734493671000',
  '6011111111111117',
  '6011000990139424',
  '3056930009020004',
  '30569309025904',
  '38520000023237',
  '36227206271667',
  '3566002020360505',
  '3530111333300000',
  '6200000000000005',
]);

/** Printed shapes: one block, groups of four (last group shorter), Amex 4-6-5, Diners 4-6-4. */
function cardShape(s: GroupSlice): boolean {
  if (s.lengths.length === 1) return true;
  if (!uniformSeps(s.seps, ' -\u00a0')) return false;
  if (sameLengths(s.lengths, [4, 6, 5]) || sameLengths(s.lengths, [4, 6, 4])) return true;
  const last = s.lengths.length - 1;
  return s.lengths.every((n, i) => (i < last ? n === 4 : n >= 1 && n <= 4));
}

// validator's Mastercard pattern is anchored only on its first branch, so any 51-55 prefix passes
// whatever the length; Mastercard numbers are 16 digits.
function plausibleLength(digits: string): boolean {
  return !/^5[1-5]/.test(digits) || digits.length === 16;
}

// Cards of 14 to 19 digits: validator's issuer prefixes and Luhn. Shorter cards exist too: 13-digit
// Visa (still in circulation and in every generated data set) and 12- and 13-digit Maestro. Twelve
// and thirteen digits is also the length of EAN-13 and UPC-A barcodes, order and account numbers,
// of which one in ten passes Luhn, so a short card must (1) be a whole run of digits, not part of a
// longer one, (2) start with an issuer's prefix (Visa 4, Maestro 5018, 5020, 5038, 5893, 6304,
// 6759, 6761-6763), (3) pass Luhn, and (4) have a word for card or payment nearby, or be a Maestro
// number printed in groups of four (one random grouped number in about 10,000 has a Maestro prefix
// and passes Luhn; one in 100 starts with 4 and passes). A number labelled as an order, invoice,
// EAN ... stays below the threshold even with a card word.
const SHORT_CARD_IIN = /^(?:4|5018|5020|5038|5893|6304|6759|676[1-3]|0604|6390|5[6-8])/;
const CARD_CONTEXT =
  /\b(?:card|credit|debit|visa|maestro|mastercard|cc\b|cvv|cvc|payment|paid|pay\b|karte|kreditkarte|zahlung|bezahlt|carte|cb\b|paiement|pay[ée]|tarjeta|pago|pagad|carta|pagamento|pagat|kaart|creditcard|pinpas|betaal|betaling|karta|kart[aąyę]|płatno|zapłac)/iu;

const PART_BEFORE = /\d[ \u00a0./-]$/;
const PART_AFTER = /^[ \u00a0./-]\d/;

export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

// Maestro (validator knows no Maestro): 12 to 19 digits. 56-58 are Maestro ranges too, but so
// common a start of other numbers that they count only on a number printed in groups.
const MAESTRO_IIN = /^(?:5018|5020|5038|5893|6304|6759|676[1-3]|0604|6390)/;
// A card label right before the number ("Card: ...", "Kreditkarte Nr. ...", "carte n° ..."): then
// any Luhn-valid number of 12 to 19 digits printed as cards are is one, whatever its issuer prefix.
const CARD_LABEL = new RegExp(
  String.raw`(?:^|[^\p{L}\p{N}])(?:card|credit\s?card|debit\s?card|cc|karten?|kreditkarten?|bankkarten?|carte(?:\s+bancaire)?|tarjeta|carta(?:\s+di\s+credito)?|kaart|creditcard|karta|karty|maestro|visa|mastercard)`
    + LABEL_TAIL,
  'iu',
);

/** A Maestro prefix; 56-58 only on a number printed in groups, as cards are. */
function maestro(s: GroupSlice): boolean {
  return MAESTRO_IIN.test(s.digits) || (/^5[6-8]/.test(s.digits) && s.lengths.length > 1);
}

export function findCards(text: string, runs: readonly DigitRun[], options: ScanOptions): Candidate[] {
  const cards = scanSlices(text, runs, 14, 19, (s) => {
    if (!cardShape(s)) return null;
    const issued = plausibleLength(s.digits) && (validator.isCreditCard(s.digits) || (maestro(s) && luhn(s.digits)));
    if (!issued && !(luhn(s.digits) && labelledBefore(text, s.start, CARD_LABEL))) return null;
    if (!options.redactTestCards && TEST_CARDS.has(s.digits)) return null;
    return { entity: 'CREDIT_CARD', start: s.start, end: s.end, score: 1, rule: issued ? 'card-luhn' : 'card-luhn-labelled' };
  });
  // A short card is a whole run: twelve digits cut from a longer number are not a card. Only runs
  // of 12 or 13 digits are tried, so a long run of grouped digits costs nothing more here.
  const short = runs.filter((r) => {
    const n = r.groups.reduce((sum, g) => sum + g.end - g.start, 0);
    return n === 12 || n === 13;
  });
  return cards.concat(scanSlices(text, short, 12, 13, (s) => shortCard(text, s, options)));
}

function shortCard(text: string, s: GroupSlice, options: ScanOptions): Candidate | null {
  if (!cardShape(s) || !luhn(s.digits)) return null;
  if (!options.redactTestCards && TEST_CARDS.has(s.digits)) return null;
  if (PART_BEFORE.test(text.slice(Math.max(0, s.start - 2), s.start)) || PART_AFTER.test(text.slice(s.end, s.end + 2))) return null;
  if (labelledBefore(text, s.start, CARD_LABEL))
    return { entity: 'CREDIT_CARD', start: s.start, end: s.end, score: 0.95, rule: 'card-luhn-labelled' };
  if (!SHORT_CARD_IIN.test(s.digits) || labelledBefore(text, s.start, NEGATIVE_LABEL)) return null;
  const groupedMaestro = s.lengths.length > 1 && s.lengths[0] === 4 && s.digits[0] !== '4';
  const scores = groupedMaestro ? { base: 0.85, positive: 1, negative: 0.3 } : { base: 0.4, positive: 0.9, negative: 0.3 };
  return {
    entity: 'CREDIT_CARD',
    start: s.start,
    end: s.end,
    score: contextScore(text, s.start, s.end, CARD_CONTEXT, scores),
    rule: 'card-luhn-short',
  };
}

// Two letters, two check digits, then letters, digits and spaces: one flat class, cut to the
// country's length in code.
const IBAN = /(?<![A-Za-z0-9_])[A-Za-z]{2}\d{2}[ \u00a0A-Za-z0-9]{11,42}/g;
const SPECS = getCountrySpecifications();

export function findIbans(text: string): Candidate[] {
  const out: Candidate[] = [];
  IBAN.lastIndex = 0;
  for (let m = IBAN.exec(text); m !== null; m = IBAN.exec(text)) {
    const c = isWordChar(text[m.index - 1]) ? null : ibanAt(text, m.index, m[0]);
    if (c !== null) out.push(c);
    // A rejected match may hide a real IBAN starting inside it (after a space).
    IBAN.lastIndex = c !== null ? c.end : m.index + 1;
  }
  return out;
}

/** Cuts the greedy match to the country's IBAN length, so a following word is never swallowed. */
function ibanAt(text: string, start: number, match: string): Candidate | null {
  const country = match.slice(0, 2).toUpperCase();
  const length = SPECS[country]?.chars;
  if (length === undefined || length === null) return null;
  let compact = '';
  let i = 0;
  for (; i < match.length && compact.length < length; i++) {
    const ch = match[i]!;
    if (ch !== ' ' && ch !== '\u00a0') compact += ch.toUpperCase();
  }
  if (compact.length < length) return null;
  const end = start + i;
  if (isWordChar(text[end])) return null;
  if (!isValidIBAN(compact)) return null;
  return { entity: 'IBAN', start, end, score: 1, rule: 'iban-mod97' };
}
