// What the PII recognizers share: the candidate shape, the scan options, context-word scoring
// around a candidate, and a splitter of digit runs into separator-delimited groups that the
// numeric recognizers (cards, SSN, NHS, tax ids) try sub-ranges of.

export const PII_ENTITIES = [
  'EMAIL',
  'PHONE',
  'CREDIT_CARD',
  'IBAN',
  'IP_ADDRESS',
  'US_SSN',
  'UK_NINO',
  'UK_NHS',
  'DE_TAX_ID',
  'DE_ID_CARD',
  'FR_NIR',
  'FR_TAX_ID',
  'ES_DNI',
  'ES_NIE',
  'IT_FISCAL_CODE',
  'NL_BSN',
  'PL_PESEL',
  'PASSPORT',
] as const;
export type PiiEntity = (typeof PII_ENTITIES)[number];

export interface Candidate {
  readonly entity: PiiEntity;
  readonly start: number;
  readonly end: number;
  readonly score: number;
  readonly rule: string;
}

export interface ScanOptions {
  readonly phoneCountries: readonly string[];
  readonly internationalPhones: boolean;
  readonly privateIps: boolean;
  readonly redactTestCards: boolean;
  /** Candidates scoring below this are dropped; recognizers may skip validating them. */
  readonly minScore: number;
}

/**
 * Words that mark a number as something other than personal data (order, tracking, version ...),
 * EN/DE/FR/ES/IT/NL/PL.
 */
export const NEGATIVE_CONTEXT =
  /\b(?:order|invoice|tracking|shipment|parcel|ref|ticket|sku|part\s*(?:no|number|#)|serial|isbn|ean|version|build|release|timestamp|epoch|zeitstempel|horodatage|bestell|rechnung|sendung|auftrag|artikel|kunden-?nr|account|konto|compte|commande|facture|suivi|colis|référence|article|pedido|factura|referencia|versión|ordine|fattura|riferimento|spedizione|versione|bestelnummer|bestelling|factuur|referentie|zending|versie|zamówieni|faktur|przesyłk|wersj)/iu;

const BEFORE = 48;
const AFTER = 24;

/** The text around [start, end) without the candidate itself, its two sides kept apart. */
export function around(text: string, start: number, end: number): string {
  return text.slice(Math.max(0, start - BEFORE), start) + ' \u0000 ' + text.slice(end, end + AFTER);
}

export interface ContextScores {
  /** Score with no context word either way. */
  readonly base: number;
  /** Score when a positive context word is near. */
  readonly positive: number;
  /** Score when only a negative context word is near. */
  readonly negative: number;
}

/** Context can move a validated candidate's score; it never rescues one that failed validation. */
export function contextScore(
  text: string,
  start: number,
  end: number,
  positive: RegExp,
  scores: ContextScores,
  negative: RegExp = NEGATIVE_CONTEXT,
): number {
  const window = around(text, start, end);
  if (positive.test(window)) return scores.positive;
  if (negative.test(window)) return scores.negative;
  return scores.base;
}

const WORDISH = /[\p{L}\p{N}_]/u;

/**
 * A letter, digit or underscore in any script. The recognizers' regexes use ASCII lookbehinds
 * (a Unicode-property lookbehind, tried at every position, costs several times more) and call
 * this on the character before a match to reject one glued to a non-ASCII letter.
 */
export function isWordChar(ch: string | undefined): boolean {
  if (ch === undefined) return false;
  const c = ch.charCodeAt(0);
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
  return WORDISH.test(ch);
}

/** A run of digits split at single separators, e.g. "4111 1111-1111 1111" -> 4 groups. */
export interface DigitRun {
  /** Offsets of each group of digits. */
  readonly groups: ReadonlyArray<{ readonly start: number; readonly end: number }>;
  /** seps[i] is the separator between group i and i + 1. */
  readonly seps: readonly string[];
}

/**
 * Digit runs that are not glued to letters (hex strings, UUIDs, "AB1234" codes are skipped), split
 * into groups at single separators (space, no-break space, . / -). A plain loop rather than a
 * regex: linear, with no quantifier to bound.
 */
export function digitRuns(text: string): DigitRun[] {
  const runs: DigitRun[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    const groups: Array<{ start: number; end: number }> = [];
    const seps: string[] = [];
    for (let g = i; ; g = ++i) {
      while (i < n && isDigit(text.charCodeAt(i))) i++;
      groups.push({ start: g, end: i });
      if (!(i + 1 < n && isSeparator(text.charCodeAt(i)) && isDigit(text.charCodeAt(i + 1)))) break;
      seps.push(text[i]!);
    }
    // Nine digits is the shortest number any numeric recognizer wants (US SSN).
    if (i - start >= 9 && !isWordChar(text[start - 1]) && !isWordChar(text[i]) && text[start - 1] !== '+') runs.push({ groups, seps });
  }
  return runs;
}

function isSeparator(code: number): boolean {
  return code === 32 || code === 0xa0 || code === 46 || code === 47 || code === 45;
}

export function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

/** A contiguous slice of a run's groups: its text span, its digits, its group lengths and separators. */
export interface GroupSlice {
  readonly start: number;
  readonly end: number;
  readonly digits: string;
  readonly lengths: readonly number[];
  readonly seps: readonly string[];
}

/**
 * Tries every contiguous slice of each run holding between min and max digits, longest first
 * from each starting group; emits the first slice `accept` turns into a candidate and resumes
 * after it. A slice holds at most `max` digits, so the work per group is bounded and the scan
 * stays linear in the length of the run.
 */
export function scanSlices(
  text: string,
  runs: readonly DigitRun[],
  min: number,
  max: number,
  accept: (slice: GroupSlice) => Candidate | null,
): Candidate[] {
  const out: Candidate[] = [];
  for (const run of runs) {
    const { groups } = run;
    // before[k]: digits in groups[0..k), so a slice's length is one subtraction.
    const before = [0];
    for (const g of groups) before.push(before[before.length - 1]! + g.end - g.start);
    let last = 0; // the last group a slice from i may end at without exceeding max
    let i = 0;
    while (i < groups.length) {
      last = Math.max(last, i);
      while (last + 1 < groups.length && before[last + 2]! - before[i]! <= max) last++;
      let found = -1;
      for (let j = last; j >= i && before[j + 1]! - before[i]! >= min; j--) {
        if (before[j + 1]! - before[i]! > max) continue;
        const c = accept(sliceOf(text, run, i, j));
        if (c !== null) {
          out.push(c);
          found = j;
          break;
        }
      }
      i = found >= 0 ? found + 1 : i + 1;
    }
  }
  return out;
}

function sliceOf(text: string, run: DigitRun, i: number, j: number): GroupSlice {
  const lengths: number[] = [];
  let digits = '';
  for (let k = i; k <= j; k++) {
    const g = run.groups[k]!;
    lengths.push(g.end - g.start);
    digits += text.slice(g.start, g.end);
  }
  return { start: run.groups[i]!.start, end: run.groups[j]!.end, digits, lengths, seps: run.seps.slice(i, j) };
}

/** True when every separator is one of `allowed` and all are the same character. */
export function uniformSeps(seps: readonly string[], allowed: string): boolean {
  if (seps.length === 0) return true;
  const first = seps[0]!;
  return allowed.includes(first) && seps.every((s) => s === first);
}

export function sameLengths(lengths: readonly number[], shape: readonly number[]): boolean {
  return lengths.length === shape.length && lengths.every((n, i) => n === shape[i]);
}

/**
 * Does a label of `labels` stand right before [start, ...)? The label may be followed by a word for
 * "number" (EN, DE, FR, ES, IT, NL, PL), a short note in brackets ("(privat)", "(mobile)") and a
 * colon, dash or equals sign, nothing else: "Tel.: 40-12-33-87", "Telefonnummer (privat): ...",
 * "numéro de téléphone : ...". A label further away, or with other words between, is only context.
 */
export function labelledBefore(text: string, start: number, labels: RegExp): boolean {
  return labels.test(text.slice(Math.max(0, start - LABEL_REACH), start));
}

const LABEL_REACH = 64;

/** The end of a label regex: what may stand between a label and its number (see labelledBefore). */
export const LABEL_TAIL = String.raw`(?:[-\s]?(?:number|nummer|numer|num[eé]ro|n[uú]mero|no|nr|n[°º]|#))?\.?(?:\s+(?:is|ist|est|es|è|jest))?(?:\s*\/\s*\p{L}{2,12}\.?)?(?:\s*\([^()\n\d]{1,20}\))?\s*[:：=#–-]?\s*$`;

/** A word of NEGATIVE_CONTEXT standing as the number's label ("Ticket 5612-1948-2198", "Bestellnummer: ..."). */
export const NEGATIVE_LABEL = new RegExp(
  String.raw`(?:^|[^\p{L}\p{N}])` + NEGATIVE_CONTEXT.source.replace(/^\\b/, '') + String.raw`[\p{L}-]*` + LABEL_TAIL,
  'iu',
);
