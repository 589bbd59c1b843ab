// US Social Security numbers and the UK's National Insurance and NHS numbers. validator covers
// none of these as identity numbers (its en-US tax id is the EIN, its en-GB rule misses three of
// HMRC's excluded NINO prefixes), so the rules are written here from the issuing bodies' specs.
import validator from 'validator';
import type { Candidate, DigitRun, GroupSlice } from './shared.js';
import { contextScore, isWordChar, sameLengths, scanSlices, uniformSeps } from './shared.js';

// SSA: area 000, 666 and 900-999 are never issued; group 00 and serial 0000 neither. The numbers
// below were printed in advertising or are the stock example, and name nobody real.
const SSN_PUBLISHED = new Set(['078051120', '219099999', '123456789']);
const SSN_CONTEXT = /\b(?:ssn|social\s+security|soc\.?\s*sec|sozialversicherungsnummer|sécurité\s+sociale)/iu;

export function validSsn(digits: string): boolean {
  if (!/^\d{9}$/.test(digits) || SSN_PUBLISHED.has(digits) || /^(\d)\1{8}$/.test(digits)) return false;
  const area = Number(digits.slice(0, 3));
  return area !== 0 && area !== 666 && area < 900 && digits.slice(3, 5) !== '00' && digits.slice(5) !== '0000';
}

export function findSsns(text: string, runs: readonly DigitRun[]): Candidate[] {
  return scanSlices(text, runs, 9, 9, (s) => {
    const printed = sameLengths(s.lengths, [3, 2, 4]) && uniformSeps(s.seps, '- ');
    if (!(printed || s.lengths.length === 1) || !validSsn(s.digits)) return null;
    const scores = printed ? { base: 0.8, positive: 0.95, negative: 0.3 } : { base: 0.3, positive: 0.9, negative: 0.2 };
    return { entity: 'US_SSN', start: s.start, end: s.end, score: contextScore(text, s.start, s.end, SSN_CONTEXT, scores), rule: 'us-ssn' };
  });
}

// HMRC: first letter not D F I Q U V, second not D F I O Q U V (the class below), and the pairs
// BG GB KN NK NT TN ZZ are never allocated. validator checks the letters and all but BG, KN, NT.
const NINO = /(?<![A-Za-z0-9_])([A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z]) ?(\d{2}) ?(\d{2}) ?(\d{2})(?: ?([A-D]))?(?![\p{L}\p{N}_])/gu;
const NINO_EXCLUDED = new Set(['BG', 'GB', 'KN', 'NK', 'NT', 'TN', 'ZZ']);
const NINO_CONTEXT = /\b(?:nino|national\s+insurance|ni\s+(?:no|number)|nin\b|sozialversicherung|assurance\s+nationale)/iu;

export function validNino(compact: string): boolean {
  const withSuffix = compact.length === 8 ? compact + ' ' : compact;
  return validator.isTaxID(withSuffix, 'en-GB') && /^[A-Z]{2}\d{6}[A-D ]$/.test(withSuffix) && !NINO_EXCLUDED.has(compact.slice(0, 2));
}

export function findNinos(text: string): Candidate[] {
  const out: Candidate[] = [];
  NINO.lastIndex = 0;
  for (let m = NINO.exec(text); m !== null; m = NINO.exec(text)) {
    const compact = m
      .slice(1)
      .filter((g) => g !== undefined)
      .join('');
    if (isWordChar(text[m.index - 1]) || !validNino(compact)) continue;
    const end = m.index + m[0].length;
    // Without its suffix letter the shape is two letters and six digits, which many codes share.
    const scores = m[5] !== undefined ? { base: 0.85, positive: 0.95, negative: 0.4 } : { base: 0.4, positive: 0.9, negative: 0.2 };
    out.push({ entity: 'UK_NINO', start: m.index, end, score: contextScore(text, m.index, end, NINO_CONTEXT, scores), rule: 'uk-nino' });
  }
  return out;
}

// NHS number: ten digits, the last a mod-11 check over the first nine with weights 10..2.
export function validNhs(digits: string): boolean {
  if (!/^\d{10}$/.test(digits) || /^(\d)\1{9}$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < 9; i++) sum += Number(digits[i]) * (10 - i);
  const check = 11 - (sum % 11);
  if (check === 10) return false;
  return (check === 11 ? 0 : check) === Number(digits[9]);
}

// One ten-digit number in eleven passes mod 11, and 3-3-4 is also how NANP phones are printed:
// without a word such as "NHS" nearby the match stays below the default threshold.
const NHS_CONTEXT = /\b(?:nhs|health\s+service|patient)/iu;

export function findNhs(text: string, runs: readonly DigitRun[]): Candidate[] {
  return scanSlices(text, runs, 10, 10, (s: GroupSlice) => {
    const shaped = s.lengths.length === 1 || (sameLengths(s.lengths, [3, 3, 4]) && uniformSeps(s.seps, ' -'));
    if (!shaped || !validNhs(s.digits)) return null;
    const score = contextScore(text, s.start, s.end, NHS_CONTEXT, { base: 0.4, positive: 1, negative: 0.2 });
    return { entity: 'UK_NHS', start: s.start, end: s.end, score, rule: 'uk-nhs-mod11' };
  });
}
