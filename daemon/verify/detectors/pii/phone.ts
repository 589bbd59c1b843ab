// Phone numbers: a cheap regex proposes digit sequences with phone punctuation, libphonenumber-js
// (full metadata, so isValid checks each country's number plans, not just lengths) validates them.
// International numbers (+49 ..., 0049 ...) are accepted for any country when `internationalPhones`
// is on; national numbers only for the configured countries and only as that country writes them
// (with its trunk prefix, NANP in 3-3-4 groups). An unpunctuated digit string needs a context word:
// too many order numbers and timestamps are also valid phone numbers.
import { getCountryCallingCode, Metadata, parsePhoneNumberFromString, PhoneNumber, type CountryCode, type E164Number } from 'libphonenumber-js/max';
import type { Candidate, ScanOptions } from './shared.js';
import { contextScore, isWordChar, NEGATIVE_CONTEXT } from './shared.js';

const PHONE = /(?<![A-Za-z0-9_+./-])(?:\+|\(\+?)?\d[\d ()./\u00a0-]{5,22}\d(?![\p{L}\p{N}_/:-]|\.\d)/gu;
const POSITIVE = /\b(?:phone|tel|telephone|call|mobile|cell|fax|sms|whatsapp|contact|reach|dial|ring|telefon|rufnummer|handy|mobil|anrufen|ruf|erreichbar|téléphone|tél|portable|appel|appeler|joindre)/iu;
// A number labelled as another identifier is not a phone, even when that identifier's check fails.
const NEGATIVE = new RegExp(NEGATIVE_CONTEXT.source + String.raw`|\b(?:nhs|ssn|social\s+security|iban|steuer|tax|fiscal|nir\b|sécu|insee|ausweis|passport|passeport|reisepass|siren|siret|tva|vat)`, 'iu');
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
    if (c !== null) out.push(c);
  }
  return out;
}

const LIST_SEPARATOR = /\s[/-]\s|\s\s/;

function phoneAt(text: string, start: number, raw: string, options: ScanOptions): Candidate | null {
  const digits = raw.replace(/\D/g, '');
  if (digits.length < 7 || digits.length > 15 || DATE.test(raw) || DOTTED_QUAD.test(raw) || SSN_SHAPE.test(raw)) return null;
  const end = start + raw.length;
  const bare = /^\d+$/.test(raw);
  const scores = bare ? { base: 0.4, positive: 0.95, negative: 0.3 } : { base: 0.85, positive: 0.95, negative: 0.4 };
  const score = contextScore(text, start, end, POSITIVE, scores, NEGATIVE);
  // Validation is the expensive part: a candidate that cannot reach the threshold is not validated.
  if (score < options.minScore) return null;
  const international = raw.startsWith('+') || raw.startsWith('(+') || digits.startsWith('00');
  const rule = international ? internationalRule(raw, digits, options) : nationalRule(raw, digits, options);
  return rule === null ? null : { entity: 'PHONE', start, end, score, rule };
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

function nationalRule(raw: string, digits: string, options: ScanOptions): string | null {
  for (const country of options.phoneCountries) {
    const plan = planOf(country);
    const nsn = plan.nationalNumber(digits);
    if (nsn === null) continue;
    if (plan.callingCode === '1' && !nanpGrouping(raw)) continue;
    if (valid('+' + plan.callingCode + nsn)) return 'phone-national';
  }
  return null;
}

function valid(e164: string): boolean {
  try {
    return new PhoneNumber(e164 as E164Number).isValid();
  } catch {
    return false; // the constructor throws on numbers too short for any plan
  }
}

// The library's parse() and isValid() cost tens of microseconds (its patterns are compiled on every
// call), so a national candidate is reduced to E.164 here, without parse(), and must first fit the
// country's trunk prefix, lengths and general number pattern, read once from the same metadata.
// Countries with national-prefix transform rules (AR, MX ...) may be missed this way, never
// over-reported: isValid() still has the last word.
interface Plan {
  readonly callingCode: string;
  /** The national significant number of `digits` as written in this country, or null when it cannot be one. */
  nationalNumber(digits: string): string | null;
}
const plans = new Map<string, Plan>();

interface MetadataAtRuntime {
  numberingPlan: { nationalPrefix(): string | undefined };
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
  const lengths = new Set(m.possibleLengths());
  const pattern = new RegExp('^(?:' + m.nationalNumberPattern() + ')$');
  const fits = (nsn: string): boolean => lengths.has(nsn.length) && pattern.test(nsn);
  plan = {
    callingCode: getCountryCallingCode(country as CountryCode),
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
  const groups = raw.split(/\D+/).filter((g) => g.length > 0).map((g) => g.length).join(',');
  return groups === '3,3,4' || groups === '1,3,3,4' || groups === '10' || groups === '11' || groups === '3,7';
}
