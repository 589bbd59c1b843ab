// Spanish, Italian, Dutch and Polish national identifiers, each with its issuer's check:
// - Spain DNI (8 digits + letter) and NIE (X/Y/Z + 7 digits + letter): the letter is
//   TRWAGMYFPDXBNJZSQVHLCKE[n mod 23], the NIE's X/Y/Z counted as 0/1/2 (Ministerio del Interior).
// - Italy codice fiscale (16 characters, DM 23/12/1976): the shape of surname, name, birth date and
//   place, with omocodia (digits replaced by LMNPQRSTUV), and the odd/even-table check letter.
// - Netherlands BSN (9 digits, the "11-proef": sum of digits 1-8 weighted 9..2, minus digit 9, is a
//   multiple of 11). One 9-digit number in eleven passes, and nine digits is the length of order
//   numbers and of Dutch and Spanish phones: a BSN needs a context word (BSN, burgerservicenummer,
//   sofinummer) to reach the default threshold.
// - Poland PESEL (11 digits: birth date with the century in the month, serial, check digit weighted
//   1-3-7-9): the date must exist. About one random 11-digit number in fifty passes both; with a
//   birth year a living person can have (1900 to this year) one in about 250 does, as often as the
//   German tax id's check passes. Such a PESEL is reported bare, lowered by an order or invoice
//   word nearby; one born in the 1800s or after this year needs the word PESEL.
import type { Candidate, DigitRun } from './shared.js';
import { contextScore, isWordChar, sameLengths, scanSlices, uniformSeps } from './shared.js';

const DNI_LETTERS = 'TRWAGMYFPDXBNJZSQVHLCKE';
// Printed 12345678Z, 12345678-Z, 12.345.678-Z; X1234567L, X-1234567-L.
const ES_ID = /(?<![A-Za-z0-9_])(?:([XYZxyz])-?)?(\d{7,8}|\d{1,2}\.\d{3}\.\d{3})[- ]?([A-Za-z])(?![\p{L}\p{N}_])/gu;
const ES_CONTEXT =
  /\b(?:dni|nie|nif|documento\s+(?:nacional\s+)?de\s+identidad|identidad|extranjero|identity\s+(?:card|number)|id\s+number|ausweis|carte\s+d'identité)/iu;

export function validEsId(compact: string): boolean {
  const m = /^([XYZ]\d{7}|\d{8})([A-Z])$/.exec(compact.toUpperCase());
  if (m === null) return false;
  const body = m[1]!;
  const n = Number(/^[XYZ]/.test(body) ? 'XYZ'.indexOf(body[0]!) + body.slice(1) : body);
  return DNI_LETTERS[n % 23] === m[2];
}

export function findEsIds(text: string): Candidate[] {
  const out: Candidate[] = [];
  ES_ID.lastIndex = 0;
  for (let m = ES_ID.exec(text); m !== null; m = ES_ID.exec(text)) {
    const prefix = m[1] ?? '';
    // A DNI has eight digits, a NIE a prefix letter and seven.
    const digits = m[2]!.replaceAll('.', '');
    if (isWordChar(text[m.index - 1]) || digits.length !== (prefix === '' ? 8 : 7)) continue;
    if (!validEsId(prefix + digits + m[3]!)) continue;
    const end = m.index + m[0].length;
    const entity = prefix === '' ? 'ES_DNI' : 'ES_NIE';
    // The check letter is one in 23: a lower-case letter (a word glued to a number) needs context.
    const upper = m[3] === m[3]!.toUpperCase() && prefix === prefix.toUpperCase();
    const scores = upper ? { base: 0.85, positive: 1, negative: 0.4 } : { base: 0.3, positive: 0.9, negative: 0.2 };
    out.push({ entity, start: m.index, end, score: contextScore(text, m.index, end, ES_CONTEXT, scores), rule: 'es-dni-mod23' });
  }
  return out;
}

// Positions 7-8, 10-11 and 12-14 are digits, possibly replaced (omocodia) by L M N P Q R S T U V.
const CF =
  /(?<![A-Za-z0-9_])[A-Za-z]{6}[\dLMNP-Vlmnp-v]{2}[ABCDEHLMPRSTabcdehlmprst][\dLMNP-Vlmnp-v]{2}[A-Za-z][\dLMNP-Vlmnp-v]{3}[A-Za-z](?![\p{L}\p{N}_])/gu;
const CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23];

export function validItFiscalCode(value: string): boolean {
  const v = value.toUpperCase();
  if (v.length !== 16) return false;
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    const c = v.charCodeAt(i);
    // Digits count as the letter of the same rank (0 = A ...) in both tables.
    const rank = c <= 57 ? c - 48 : c - 65;
    sum += i % 2 === 0 ? CF_ODD[rank]! : rank;
  }
  return v.charCodeAt(15) - 65 === sum % 26;
}

export function findItFiscalCodes(text: string): Candidate[] {
  const out: Candidate[] = [];
  CF.lastIndex = 0;
  for (let m = CF.exec(text); m !== null; m = CF.exec(text)) {
    if (isWordChar(text[m.index - 1]) || !validItFiscalCode(m[0])) continue;
    out.push({ entity: 'IT_FISCAL_CODE', start: m.index, end: m.index + m[0].length, score: 1, rule: 'it-cf-check' });
  }
  return out;
}

const BSN_CONTEXT = /\b(?:bsn|burgerservicenummer|burger\s*service\s*nummer|sofi-?nummer|citizen\s+service\s+number)/iu;

export function validBsn(digits: string): boolean {
  if (!/^\d{9}$/.test(digits) || /^(\d)\1{8}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 8; i++) sum += Number(digits[i]) * (9 - i);
  return (sum - Number(digits[8])) % 11 === 0;
}

export function findBsns(text: string, runs: readonly DigitRun[]): Candidate[] {
  return scanSlices(text, runs, 9, 9, (s) => {
    const shaped =
      s.lengths.length === 1 || (sameLengths(s.lengths, [4, 2, 3]) && uniformSeps(s.seps, '. ')) || sameLengths(s.lengths, [3, 3, 3]);
    if (!shaped || !validBsn(s.digits)) return null;
    const score = contextScore(text, s.start, s.end, BSN_CONTEXT, { base: 0.3, positive: 1, negative: 0.2 });
    return { entity: 'NL_BSN', start: s.start, end: s.end, score, rule: 'nl-bsn-11proef' };
  });
}

const PESEL_CONTEXT = /\b(?:pesel|numer\s+ewidencyjny|national\s+id|identity\s+number)/iu;
const PESEL_WEIGHTS = [1, 3, 7, 9, 1, 3, 7, 9, 1, 3];

/** The birth year of a valid PESEL, or null when the check digit or the date fails. */
export function peselBirthYear(digits: string): number | null {
  if (!/^\d{11}$/.test(digits) || /^(\d)\1{10}$/.test(digits)) return null;
  let sum = 0;
  for (let i = 0; i < 10; i++) sum += Number(digits[i]) * PESEL_WEIGHTS[i]!;
  if ((10 - (sum % 10)) % 10 !== Number(digits[10])) return null;
  // The month carries the century: +80 for 1800-1899, +0 1900s, +20 2000s, +40 2100s, +60 2200s.
  const rawMonth = Number(digits.slice(2, 4));
  const century = [1900, 2000, 2100, 2200, 1800][Math.floor(rawMonth / 20)];
  const month = rawMonth % 20;
  if (century === undefined || month < 1 || month > 12) return null;
  const year = century + Number(digits.slice(0, 2));
  const day = Number(digits.slice(4, 6));
  return day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate() ? year : null;
}

export function validPesel(digits: string): boolean {
  return peselBirthYear(digits) !== null;
}

export function findPesels(text: string, runs: readonly DigitRun[]): Candidate[] {
  return scanSlices(text, runs, 11, 11, (s) => {
    const year = s.lengths.length === 1 ? peselBirthYear(s.digits) : null;
    if (year === null) return null;
    const living = year >= 1900 && year <= new Date().getUTCFullYear();
    const scores = living ? { base: 0.7, positive: 1, negative: 0.3 } : { base: 0.4, positive: 0.9, negative: 0.2 };
    const score = contextScore(text, s.start, s.end, PESEL_CONTEXT, scores);
    return { entity: 'PL_PESEL', start: s.start, end: s.end, score, rule: 'pl-pesel-check' };
  });
}
