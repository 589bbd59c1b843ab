// German and French national identifiers. validator checks the German Steuer-ID (ISO 7064
// MOD 11,10 plus its digit-repetition rule) and the French numéro fiscal (SPI, key = first ten
// digits mod 511). The German ID-card number (ICAO 9303 check digit) and the French NIR (INSEE,
// key = 97 - n mod 97, Corsica 2A/2B counted as 19/18) are not in validator and are checked here.
import validator from 'validator';
import type { Candidate, DigitRun } from './shared.js';
import { contextScore, isWordChar, sameLengths, scanSlices, uniformSeps } from './shared.js';

const DE_TAX_CONTEXT =
  /\b(?:steuer-?id|steuer-?identifikationsnummer|steuerliche\s+identifikationsnummer|identifikationsnummer|idnr|tax\s+id|tin\b|steuernummer|numéro\s+fiscal\s+allemand)/iu;

export function findDeTaxIds(text: string, runs: readonly DigitRun[]): Candidate[] {
  return scanSlices(text, runs, 11, 11, (s) => {
    const shaped = s.lengths.length === 1 || (sameLengths(s.lengths, [2, 3, 3, 3]) && uniformSeps(s.seps, ' /'));
    if (!shaped || !validator.isTaxID(s.digits, 'de-DE')) return null;
    const score = contextScore(text, s.start, s.end, DE_TAX_CONTEXT, { base: 0.7, positive: 1, negative: 0.3 });
    return { entity: 'DE_TAX_ID', start: s.start, end: s.end, score, rule: 'de-steuer-id' };
  });
}

// Serial letters of the Personalausweis (vowels and look-alikes are never used), nine characters,
// then the ICAO check digit. Without that tenth digit nothing can be validated, so nothing is reported.
const DE_ID = /(?<![A-Za-z0-9_])[CFGHJKLMNPRTVWXYZ][CFGHJKLMNPRTVWXYZ0-9]{8}\d(?![\p{L}\p{N}_])/gu;
const DE_ID_CONTEXT =
  /\b(?:personalausweis|ausweis|ausweisnummer|ausweis-?nr|id-?karte|identity\s+card|id\s+card|carte\s+d'identité|dokumentennummer|document\s+number)/iu;

export function icaoCheckDigit(chars: string): number {
  const weights = [7, 3, 1];
  let sum = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars.charCodeAt(i);
    const value = c <= 57 ? c - 48 : c - 55;
    sum += value * weights[i % 3]!;
  }
  return sum % 10;
}

export function validDeIdCard(value: string): boolean {
  return /^[CFGHJKLMNPRTVWXYZ][CFGHJKLMNPRTVWXYZ0-9]{8}\d$/.test(value) && icaoCheckDigit(value.slice(0, 9)) === Number(value[9]);
}

export function findDeIdCards(text: string): Candidate[] {
  const out: Candidate[] = [];
  DE_ID.lastIndex = 0;
  for (let m = DE_ID.exec(text); m !== null; m = DE_ID.exec(text)) {
    if (isWordChar(text[m.index - 1]) || !validDeIdCard(m[0])) continue;
    const end = m.index + m[0].length;
    // One ten-character code in ten passes the check digit, so a context word is required by default.
    const score = contextScore(text, m.index, end, DE_ID_CONTEXT, { base: 0.4, positive: 1, negative: 0.2 });
    out.push({ entity: 'DE_ID_CARD', start: m.index, end, score, rule: 'de-id-card-icao' });
  }
  return out;
}

// sex (1, 2; 3, 4, 7, 8 for provisional numbers), year, month (01-12; 20-42 and 50-99 when unknown),
// département (2A/2B for Corsica), commune, order number, key.
const NIR =
  /(?<![A-Za-z0-9_])([1-478]) ?(\d{2}) ?(0[1-9]|1[0-2]|[23]\d|4[0-2]|[5-9]\d) ?(\d{2}|2[AB]) ?(\d{3}) ?(\d{3}) ?(\d{2})(?![\p{L}\p{N}_])/gu;

export function validNir(compact: string): boolean {
  const m = /^([1-478]\d{2}(?:0[1-9]|1[0-2]|[23]\d|4[0-2]|[5-9]\d))(\d{2}|2[AB])(\d{6})(\d{2})$/.exec(compact);
  if (m === null || m[2] === '00') return false;
  const department = m[2] === '2A' ? '19' : m[2] === '2B' ? '18' : m[2]!;
  const n = BigInt(m[1]! + department + m[3]!);
  return 97n - (n % 97n) === BigInt(m[4]!);
}

export function findNirs(text: string): Candidate[] {
  const out: Candidate[] = [];
  NIR.lastIndex = 0;
  for (let m = NIR.exec(text); m !== null; m = NIR.exec(text)) {
    if (isWordChar(text[m.index - 1]) || !validNir(m.slice(1).join(''))) continue;
    out.push({ entity: 'FR_NIR', start: m.index, end: m.index + m[0].length, score: 1, rule: 'fr-nir-mod97' });
  }
  return out;
}

const FR_TAX_CONTEXT =
  /\b(?:num[ée]ro\s+fiscal|spi\b|identifiant\s+fiscal|nif\b|imp[oô]ts?|avis\s+d'imposition|tax\s+(?:id|number)|steuernummer)/iu;

export function findFrTaxIds(text: string, runs: readonly DigitRun[]): Candidate[] {
  return scanSlices(text, runs, 13, 13, (s) => {
    const shaped = s.lengths.length === 1 || (sameLengths(s.lengths, [2, 2, 3, 3, 3]) && uniformSeps(s.seps, ' '));
    if (!shaped || !validator.isTaxID(s.digits, 'fr-FR')) return null;
    // Three check digits: one 13-digit number in 511 passes, so context moves the score both ways.
    const score = contextScore(text, s.start, s.end, FR_TAX_CONTEXT, { base: 0.7, positive: 1, negative: 0.3 });
    return { entity: 'FR_TAX_ID', start: s.start, end: s.end, score, rule: 'fr-spi-mod511' };
  });
}
