// Phone numbers: a cheap regex proposes digit sequences with phone punctuation, libphonenumber-js
// (full metadata, so isValid checks each country's number plans, not just lengths) validates them.
// International numbers (+49 ..., 0049 ...) are accepted for any country when `internationalPhones`
// is on; national numbers only for the configured countries and only as that country writes them
// (with its trunk prefix, NANP in 3-3-4 groups). An unpunctuated digit string needs a context word:
// too many order numbers and timestamps are also valid phone numbers.
import {
  getCountryCallingCode,
  Metadata,
  parsePhoneNumberFromString,
  PhoneNumber,
  type CountryCode,
  type E164Number,
} from 'libphonenumber-js/max';
import type { Candidate, ScanOptions } from './shared.js';
import { contextScore, isWordChar, LABEL_TAIL, labelledBefore, NEGATIVE_CONTEXT } from './shared.js';

// The number may be followed by an extension glued to it ("555-0123x036"); see EXTENSION.
const PHONE = /(?<![A-Za-z0-9_+./-])(?:\+|\(\+?)?\d[\d ()./\u00a0-]{5,22}\d(?:(?![\p{L}\p{N}_/:-]|\.\d)|(?=[xX]\d))/gu;
// EN, DE, FR, ES, IT, NL, PL (prefixes: "tel" also covers teléfono, telefono, telefoon, telefon).
const POSITIVE =
  /\b(?:phone|tel|telephone|call|mobile|cell|fax|sms|whatsapp|contact|reach|dial|ring|telefon|rufnummer|handy|mobil|anrufen|ruf|erreichbar|téléphone|tél|portable|appel|appeler|joindre|cont[aá]ct|m[oó]vil|celular|ll[aá]m|fijo|contatt|chiam|recapito|mobiel|gsm|bel(?:len|\b)|gebeld|bereik|toestel|kom[oó]rk|dzwo|zadzwo|kontakt|skontakt)/iu;
// A number labelled as another identifier is not a phone, even when that identifier's check fails.
const NEGATIVE = new RegExp(
  NEGATIVE_CONTEXT.source
    + String.raw`|\b(?:nhs|ssn|social\s+security|iban|steuer|tax|fiscal|nir\b|sécu|insee|ausweis|passport|passeport|reisepass|siren|siret|tva|vat|dni\b|nie\b|nif\b|bsn\b|burgerservice|pesel|pasaporte|passaporto|paspoort|paszport)`,
  'iu',
);
// A label right before the number (labelledBefore): "Phone:", "Tel.", "Telefon", "Téléphone",
// "Teléfono", "Telefono", "Telefoon", Polish "tel. kom.", and the mobile and fax words.
const LABEL = new RegExp(
  String.raw`(?:^|[^\p{L}\p{N}])(?:phone|telephone|tel|t[ée]l[ée]phone|t[ée]l|tel[ée]fono|telefon|telefoon|telf|tfno|ph|mobile|mobil|mobiel|m[oó]vil|cellulare|cellulaire|cell(?:phone)?|handy|portable|kom[oó]rka|kom|fax|gsm|whatsapp|rufnummer)`
    + LABEL_TAIL,
  'iu',
);
const DATE = /^(?:\d{4}[-./]\d{1,2}[-./]\d{1,2}|\d{1,2}[-./]\d{1,2}[-./]\d{2,4})(?:[ \u00a0]\d{1,2})?$/;
const DOTTED_QUAD = /^\d{1,3}(?:\.\d{1,3}){3}$/;
const SSN_SHAPE = /^\d{3}-\d{2}-\d{4}$/;

export function findPhones(text: string, options: ScanOptions): Candidate[] {
  const out: Candidate[] = [];
  PHONE.lastIndex = 0;
  for (let m = PHONE.exec(text); m !== null; m = PHONE.exec(text)) {
    if (isWordChar(text[m.index - 1])) continue;
    let raw = m[0];
    // "030 1234567 / 0170 7654321" is two numbers: take the first, rescan from the second.
    // ("0 30 / 12 34 56" is one number: the first piece must be long enough to be a number itself.)
    const list = LIST_SEPARATOR.exec(raw);
    if (list !== null && raw.slice(0, list.index).replace(/\D/g, '').length >= 7) {
      raw = raw.slice(0, list.index);
      PHONE.lastIndex = m.index + list.index + list[0].length;
    }
    const c = phoneAt(text, m.index, raw, options);
    if (c !== null) out.push(withExtension(text, c));
  }
  return out;
}

const LIST_SEPARATOR = /\s[/-]\s|\s\s/;

// An extension after the number is part of it: "x036", "ext. 12", "Durchwahl 34", "poste 12",
// "ext." / "extensión", "int." / "interno", "toestel", "wewn." (EN, DE, FR, ES, IT, NL, PL).
const EXTENSION =
  /^(?:[ \u00a0]?[xX]\.?|[ \u00a0]*,?[ \u00a0]*(?:ext|extn|extension|extensi[oó]n|durchwahl|dw|apparat|app|poste|int|interno|toestel|tst|wewn|wew)\.?:?)[ \u00a0]?\d{1,6}(?![\p{L}\p{N}_])/iu;

function withExtension(text: string, c: Candidate): Candidate {
  const ext = EXTENSION.exec(text.slice(c.end, c.end + 24));
  return ext === null ? c : { ...c, end: c.end + ext[0].length };
}

function phoneAt(text: string, start: number, raw: string, options: ScanOptions): Candidate | null {
  const digits = raw.replace(/\D/g, '');
  const end = start + raw.length;
  if (digits.length >= 6 && digits.length <= 15 && !DOTTED_QUAD.test(raw) && !calendarDate(raw) && labelledBefore(text, start, LABEL)) {
    // Labelled: any number written as phones are, valid in a numbering plan or not ("Tel.: 40-12-33-87",
    // "Phone: 555 0142", "(31) 206-517"): a fictitious or foreign number is still someone's number.
    return { entity: 'PHONE', start, end, score: 0.95, rule: 'phone-labelled' };
  }
  if (digits.length < 7 || digits.length > 15 || DATE.test(raw) || DOTTED_QUAD.test(raw) || SSN_SHAPE.test(raw)) return null;
  if (NANP_INTERNATIONAL.test(raw)) return { entity: 'PHONE', start, end, score: 0.95, rule: 'phone-nanp-format' };
  const bare = /^\d+$/.test(raw);
  const scores = bare ? { base: 0.4, positive: 0.95, negative: 0.3 } : { base: 0.85, positive: 0.95, negative: 0.4 };
  const score = contextScore(text, start, end, POSITIVE, scores, NEGATIVE);
  // Validation is the expensive part: a candidate that cannot reach the threshold is not validated.
  if (score < options.minScore) return null;
  const international = raw.startsWith('+') || raw.startsWith('(+') || digits.startsWith('00');
  const rule = international ? internationalRule(raw, digits, options) : nationalRule(raw, digits, options, score === scores.positive);
  return rule === null ? null : { entity: 'PHONE', start, end, score, rule };
}

// +1 (415) 555-2671 and 001-415-555-2671: nothing but a NANP number is written so, so the format
// alone says phone, whether or not the area code and exchange are assigned.
const NANP_INTERNATIONAL = /^(?:\+|00)1[ .\u00a0-]?(?:\(\d{3}\)[ .\u00a0-]?|\d{3}[ .\u00a0-])\d{3}[ .\u00a0-]\d{4}$/;

/** A date a calendar has (12.03.2024, 2024-03-12), as opposed to a number that only looks like one (40-12-33). */
function calendarDate(raw: string): boolean {
  const m = /^(\d{1,4})[-./](\d{1,2})[-./](\d{2}|\d{4})$/.exec(raw);
  if (m === null) return false;
  const [a, b, c] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (m[1]!.length === 4) return b >= 1 && b <= 12 && c >= 1 && c <= 31;
  if (m[1]!.length > 2) return false;
  return a >= 1 && b >= 1 && ((a <= 31 && b <= 12) || (a <= 12 && b <= 31));
}

function internationalRule(raw: string, digits: string, options: ScanOptions): string | null {
  // "+44 (0)20 ...": the bracketed trunk prefix is written for domestic callers and not dialled.
  const dialled = raw.includes('(0)') ? raw.replace('(0)', '').replace(/\D/g, '') : digits;
  const e164 = '+' + (dialled.startsWith('00') && !raw.includes('+') ? dialled.slice(2) : dialled);
  if (options.internationalPhones) return valid(e164) ? 'phone-international' : null;
  const p = parsePhoneNumberFromString(e164, { extract: false });
  const listed = p?.country !== undefined && options.phoneCountries.includes(p.country);
  return listed && p!.isValid() ? 'phone-international' : null;
}

// "612 345 678" is a Spanish mobile and also how Spanish, Italian, Polish (and French) writers
// group the thousands of an amount.
const THOUSANDS = /^\d{1,3}(?:[ .\u00a0]\d{3})+$/;

function singleDigitGroups(raw: string): number {
  return raw.split(/\D+/).filter((g) => g.length === 1).length;
}

function nationalRule(raw: string, digits: string, options: ScanOptions, labelled: boolean): string | null {
  for (const country of options.phoneCountries) {
    const plan = planOf(country);
    const nsn = plan.nationalNumber(digits);
    if (nsn === null) continue;
    if (plan.callingCode === '1' && !nanpGrouping(raw)) continue;
    // Without a trunk prefix nothing marks such a number as a phone: a word must say so.
    // Nor anything but the length marks "0317-8471" (an ISSN), "1.3.6.1.4.1.311" (an OID) or
    // "3817 1987 6967" (which Italy's plan allows) as one: such a number has nine or ten digits, as
    // Spanish, Polish and practically all Italian numbers do, written in groups, not digit by digit.
    if (!plan.trunkPrefix && (digits.length < 9 || digits.length > 10 || singleDigitGroups(raw) >= 3 || (!labelled && THOUSANDS.test(raw))))
      continue;
    if (valid('+' + plan.callingCode + nsn)) return 'phone-national';
  }
  return null;
}

function valid(e164: string): boolean {
  let number: PhoneNumber;
  try {
    number = new PhoneNumber(e164 as E164Number);
  } catch {
    return false; // the constructor throws on numbers too short for any plan
  }
  if (number.isValid()) return true;
  // Without a country, isValid() checks a calling code against its main country only (+1 against
  // the US): a number of another country sharing the code (Canada's 416, Jersey's 1534 ...) is
  // checked as the member whose general pattern it fits. parse() would find it too, at ten times the cost.
  const members = membersOf(number.countryCallingCode);
  for (const m of members) {
    if (!m.fits(number.nationalNumber)) continue;
    (number as { country?: CountryCode }).country = m.country;
    if (number.isValid()) return true;
  }
  return false;
}

interface Member {
  readonly country: CountryCode;
  fits(nsn: string): boolean;
}
const members = new Map<string, readonly Member[]>();

/** The countries other than the main one that share a calling code (none for most codes). */
function membersOf(callingCode: string): readonly Member[] {
  let list = members.get(callingCode);
  if (list !== undefined) return list;
  const metadata = new Metadata();
  const m = metadata as unknown as MetadataAtRuntime;
  list = (m.getCountryCodesForCallingCode(callingCode) ?? []).slice(1).map((country) => {
    metadata.selectNumberingPlan(country as CountryCode);
    const lengths = new Set(m.possibleLengths());
    const pattern = new RegExp('^(?:' + m.nationalNumberPattern() + ')$');
    return { country: country as CountryCode, fits: (nsn: string) => lengths.has(nsn.length) && pattern.test(nsn) };
  });
  members.set(callingCode, list);
  return list;
}

// The library's parse() and isValid() cost tens of microseconds (its patterns are compiled on every
// call), so a national candidate is reduced to E.164 here, without parse(), and must first fit the
// country's trunk prefix, lengths and general number pattern, read once from the same metadata.
// Countries with national-prefix transform rules (AR, MX ...) may be missed this way, never
// over-reported: isValid() still has the last word.
interface Plan {
  readonly callingCode: string;
  /** The country writes national numbers with a trunk prefix (0 ...). */
  readonly trunkPrefix: boolean;
  /** The national significant number of `digits` as written in this country, or null when it cannot be one. */
  nationalNumber(digits: string): string | null;
}
const plans = new Map<string, Plan>();

interface MetadataAtRuntime {
  numberingPlan: { nationalPrefix(): string | undefined };
  getCountryCodesForCallingCode(callingCode: string): string[] | undefined;
  nationalNumberPattern(): string;
  possibleLengths(): number[];
}

function planOf(country: string): Plan {
  let plan = plans.get(country);
  if (plan !== undefined) return plan;
  const metadata = new Metadata();
  metadata.selectNumberingPlan(country as CountryCode);
  // These accessors exist on the runtime Metadata but are missing from the published types.
  const m = metadata as unknown as MetadataAtRuntime;
  const prefix = m.numberingPlan.nationalPrefix() || undefined;
  const callingCode = getCountryCallingCode(country as CountryCode);
  // A country's national numbers include those of the countries sharing its plan: US stands for
  // the whole NANP (Canada's 416, 604, 780, 905 ...), GB for Jersey, Guernsey and Man.
  const lengths = new Set<number>();
  const patterns: string[] = [];
  for (const member of m.getCountryCodesForCallingCode(callingCode) ?? [country]) {
    metadata.selectNumberingPlan(member as CountryCode);
    for (const n of m.possibleLengths()) lengths.add(n);
    patterns.push(m.nationalNumberPattern());
  }
  const pattern = new RegExp('^(?:' + patterns.join('|') + ')$');
  const fits = (nsn: string): boolean => lengths.has(nsn.length) && pattern.test(nsn);
  plan = {
    callingCode,
    trunkPrefix: prefix !== undefined,
    // A trunk prefix of 0 is always written in national form (030 ..., 06 ...); NANP's 1 is optional.
    nationalNumber(digits) {
      if (prefix !== undefined && digits.startsWith(prefix) && fits(digits.slice(prefix.length))) return digits.slice(prefix.length);
      return prefix !== '0' && fits(digits) ? digits : null;
    },
  };
  plans.set(country, plan);
  return plan;
}

/** NANP numbers are written 3-3-4 ((415) 555-2671, 415.555.2671, 1-415-555-2671) or unpunctuated. */
function nanpGrouping(raw: string): boolean {
  const groups = raw
    .split(/\D+/)
    .filter((g) => g.length > 0)
    .map((g) => g.length)
    .join(',');
  return groups === '3,3,4' || groups === '1,3,3,4' || groups === '10' || groups === '11' || groups === '3,7';
}
