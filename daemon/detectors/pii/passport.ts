// Passport numbers. No country's passport number carries a check that a reader of the number
// alone could verify (the ICAO check digit sits in the machine-readable zone, not after the number),
// and their shapes (6 to 9 letters and digits) are shared with countless codes. So only a number
// that follows the word for passport, in one of the supported languages, is reported: the word,
// then up to a few words such as "number", "No.", "nº" or a colon, then the number.
import type { Candidate } from './shared.js';
import { isWordChar } from './shared.js';

// en, de, fr, es, it, nl, pl: passport, Reisepass(nummer)/Passnummer/Pass-Nr., passeport,
// pasaporte, passaporto, paspoort(nummer), paszport(u).
const WORD =
  /(?<![\p{L}])(?:passports?|passport-?(?:no|nr|number|#)|reisepass(?:nummer|-?nr)?|pass(?:nummer|[-\s]?nr\.?)|passeports?|pasaportes?|passaport[oi]|paspoort(?:nummer)?|paszport(?:u|owy|em)?)(?![\p{L}])/giu;
// What may stand between the word and the number: "number", "no.", "nº", "n°", "#", ":", "is", "de".
const FILLER =
  /^(?:[\s:#.,()\-–]+|n\.?[º°]|(?:n|no|nr|num|number|nummer|numéro|numero|número|numer|is|ist|est|es|è|jest|heeft|has|de|del|di|du|van|mi|mijn|mein|meine|mon|my|il|mój|the|een|un|una|le|la|el)\.?(?![\p{L}\p{N}]))+/iu;
// The number: 6 to 9 upper-case letters and digits, at least three digits and not only letters.
// Right after the filler, or else the first such token before the sentence ends, at most 40
// characters on ("il passaporto di Laura è il numero YB7391028").
const NUMBER = /(?<![\p{L}\p{N}_])[A-Z0-9]{6,9}(?![\p{L}\p{N}_])/gu;
const SENTENCE_END = /[;!?\n]|\.\s/;

function numberIn(window: string): { index: number; value: string } | null {
  NUMBER.lastIndex = 0;
  for (let n = NUMBER.exec(window); n !== null; n = NUMBER.exec(window)) {
    // At least three digits: a year or a word in capitals is not a passport number.
    if (n[0].replace(/\D/g, '').length >= 3 && !/^\d{4}$/.test(n[0])) return { index: n.index, value: n[0] };
  }
  return null;
}

export function findPassports(text: string): Candidate[] {
  const out: Candidate[] = [];
  WORD.lastIndex = 0;
  for (let m = WORD.exec(text); m !== null; m = WORD.exec(text)) {
    let at = m.index + m[0].length;
    const filler = FILLER.exec(text.slice(at, at + 40));
    if (filler !== null) at += filler[0].length;
    if (isWordChar(text[at - 1])) continue;
    let window = text.slice(at, at + 40);
    const end = SENTENCE_END.exec(window);
    if (end !== null) window = window.slice(0, end.index);
    const n = numberIn(window);
    if (n === null) continue;
    const start = at + n.index;
    out.push({ entity: 'PASSPORT', start, end: start + n.value.length, score: 0.9, rule: 'passport-context' });
    WORD.lastIndex = start + n.value.length;
  }
  return out;
}
