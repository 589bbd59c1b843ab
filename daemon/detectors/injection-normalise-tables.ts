// The character tables of injection-normalise.ts: what is dropped, mapped to Latin or un-leeted before
// the rules match, kept apart from the normalising code so the data reads as data.
import { LOOKALIKE_LETTERS } from './lookalike-letters.js';

/** Zero-width and filler characters: dropped before matching, counted when they split a Latin word. */
export const ZERO_WIDTH: ReadonlySet<number> = new Set([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x00ad, 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0,
]);

/** Look-alike letters (lookalike-letters.ts) and typographic quotes; applied after NFKD and lower-casing. */
export const CONFUSABLE: Readonly<Record<string, string>> = {
  ...LOOKALIKE_LETTERS,
  '\u2019': "'",
  '\u2018': "'",
  '\u02bc': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u00ab': '"',
  '\u00bb': '"',
};

/** Light leetspeak, applied only inside words that mix letters with these characters. */
export const LEET: Readonly<Record<string, string>> = { 0: 'o', 1: 'i', 3: 'e', 4: 'a', 5: 's', 7: 't', 8: 'b', '@': 'a', $: 's' };
