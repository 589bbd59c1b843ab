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
import { isWordChar, sameLengths, scanSlices, uniformSeps } from './shared.js';

export const TEST_CARDS: ReadonlySet<string> = new Set([
  '4111111111111111', '4242424242424242', '4012888888881881', '4222222222222', '4000056655665556',
  '4000000000000002', '4000000000000077', '4000000000009995', '4000002500003155', '4005519200000004',
  '5555555555554444', '5105105105105100', '5200828282828210', '2223003122003222', '5431111111111111',
  '378282246310005', '371449635398431', '378734493671000', '6011111111111117', '6011000990139424',
  '3056930009020004', '30569309025904', '38520000023237', '36227206271667', '3566002020360505',
  '3530111333300000', '6200000000000005',
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

// 13-digit Visa numbers are no longer issued, and 13 digits is the length of every EAN-13 barcode
// (German ones start with 40-44, like Visa): cards start at 14 digits (Diners).
export function findCards(text: string, runs: readonly DigitRun[], options: ScanOptions): Candidate[] {
  return scanSlices(text, runs, 14, 19, (s) => {
    if (!cardShape(s) || !plausibleLength(s.digits) || !validator.isCreditCard(s.digits)) return null;
    if (!options.redactTestCards && TEST_CARDS.has(s.digits)) return null;
    return { entity: 'CREDIT_CARD', start: s.start, end: s.end, score: 1, rule: 'card-luhn' };
  });
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
