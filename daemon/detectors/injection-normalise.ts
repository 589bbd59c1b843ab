// The normalised view of a text that the injection rules match over: NFKD, no accents, lower case,
// look-alike letters mapped to Latin, whitespace collapsed, invisible characters gone; each view
// character keeps its original span. What the hiding found (zero-width, bidi, tag characters,
// variation selectors, mixed-script words) is counted on the side, for the hiding signals; leetspeak
// ("1gn0re") is spelled out in a second copy of the view.
import { CONFUSABLE, LEET, ZERO_WIDTH } from './injection-normalise-tables.js';

/** A normalised copy of a text, and the original span of each of its characters. */
export interface View {
  readonly text: string;
  start(i: number): number;
  end(i: number): number;
}
/** What the normalisation found hidden in a text. */
export interface Hidden {
  zeroWidth: number;
  bidi: number;
  tags: string;
  selectors: number[];
  mixedWords: number;
}

const MARKS = /\p{M}/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const isSpace = (c: number): boolean =>
  c === 32
  || (c >= 9 && c <= 13)
  || c === 0x85
  || c === 0xa0
  || c === 0x1680
  || (c >= 0x2000 && c <= 0x200a)
  || c === 0x2028
  || c === 0x2029
  || c === 0x202f
  || c === 0x205f
  || c === 0x3000;
const isNewline = (c: number): boolean => (c >= 10 && c <= 13) || c === 0x85 || c === 0x2028 || c === 0x2029;
const isLatin = (c: number): boolean => c >= 97 && c <= 122;

interface Folded {
  readonly text: string /** A non-Latin letter was mapped to a Latin one. */;
  readonly confusable: boolean;
}
const folded = new Map<string, Folded>();

/** NFKD, no combining marks, lower case, confusables to Latin; cached per character. */
function fold(ch: string): Folded {
  let out = folded.get(ch);
  if (out === undefined) {
    const base = Array.from(ch.normalize('NFKD').replace(MARKS, '').toLowerCase());
    out = { text: base.map((c) => CONFUSABLE[c] ?? c).join(''), confusable: base.some((c) => /^[a-z]$/.test(CONFUSABLE[c] ?? '')) };
    if (folded.size < 4096) folded.set(ch, out);
  }
  return out;
}

/** Characters that print as nothing: counted by kind and dropped from the view. */
function invisible(cp: number, hidden: Hidden): 'zero-width' | 'other' | null {
  if (ZERO_WIDTH.has(cp)) return 'zero-width';
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) {
    hidden.bidi++;
    return 'other';
  }
  if (cp >= 0xe0000 && cp <= 0xe007f) {
    if (cp >= 0xe0020 && cp <= 0xe007e) hidden.tags += String.fromCharCode(cp - 0xe0000);
    return 'other';
  }
  if (cp >= 0xfe00 && cp <= 0xfe0f) {
    hidden.selectors.push(cp - 0xfe00);
    return 'other';
  }
  if (cp >= 0xe0100 && cp <= 0xe01ef) {
    hidden.selectors.push(cp - 0xe0100 + 16);
    return 'other';
  }
  return null;
}

/** A view over `starts` (original offset of each view character); ends follow from the source character's width. */
function viewOf(text: string, original: string, starts: () => readonly number[]): View {
  let cache: readonly number[] | null = null;
  const at = (i: number): number => (cache ??= starts())[i] ?? original.length;
  return {
    text,
    start: at,
    end: (i) => {
      const s = at(i);
      return s + ((original.codePointAt(s) ?? 0) > 0xffff ? 2 : 1);
    },
  };
}

// A whitespace run that is not already one space: two or more characters, or one other than a space.
const WHITESPACE_TO_COLLAPSE = /\s{2,}|[^\S ]/g;
const LINE_BREAK = /[\n\r\v\f]/;

/**
 * Each run of whitespace as one character: a newline when the run breaks a line, else a space. Runs
 * that are one space already (most of them, in prose) are not touched.
 */
export function collapseWhitespace(text: string): string {
  return text.replace(WHITESPACE_TO_COLLAPSE, (ws) => (LINE_BREAK.test(ws) ? '\n' : ' '));
}

/** ASCII text: lower case and collapsed whitespace; the offset map is built only if a rule hits. */
function normaliseAscii(text: string): View {
  const view = collapseWhitespace(text.toLowerCase());
  return viewOf(view, text, () => {
    const starts: number[] = [];
    for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i)) || !isSpace(text.charCodeAt(i - 1))) starts.push(i);
    return starts;
  });
}

export function normalise(text: string): { view: View; hidden: Hidden } {
  const hidden: Hidden = { zeroWidth: 0, bidi: 0, tags: '', selectors: [], mixedWords: 0 };
  if (!NON_ASCII.test(text)) return { view: normaliseAscii(text), hidden };
  const codes: number[] = [];
  const starts: number[] = [];
  let pendingZeroWidth = 0;
  let latin = false;
  let mapped = false;
  const emit = (c: number, start: number): void => {
    if (isSpace(c)) {
      if (latin && mapped) hidden.mixedWords++;
      latin = mapped = false;
      const last = codes.length - 1;
      if (last >= 0 && (codes[last] === 32 || codes[last] === 10)) {
        if (isNewline(c)) codes[last] = 10;
        return;
      }
      c = isNewline(c) ? 10 : 32;
    } else if (isLatin(c)) latin = true;
    codes.push(c);
    starts.push(start);
  };
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const kind = cp < 0x80 ? null : invisible(cp, hidden);
    if (kind !== null) {
      if (kind === 'zero-width') pendingZeroWidth++;
      i += width;
      continue;
    }
    // Zero-width characters count only inside Latin words (ZWJ in emoji and ZWNJ in Persian are normal).
    if (pendingZeroWidth > 0 && isLatin(codes[codes.length - 1] ?? 0) && isLatin(cp | 0x20)) hidden.zeroWidth += pendingZeroWidth;
    pendingZeroWidth = 0;
    if (cp < 0x80) emit(cp >= 65 && cp <= 90 ? cp + 32 : cp, i);
    else {
      const f = fold(String.fromCodePoint(cp));
      if (f.confusable) mapped = true;
      for (let k = 0; k < f.text.length; k++) emit(f.text.charCodeAt(k), i);
    }
    i += width;
  }
  if (latin && mapped) hidden.mixedWords++;
  let view = '';
  for (let k = 0; k < codes.length; k += 4096) view += String.fromCharCode(...codes.slice(k, k + 4096));
  return { view: viewOf(view, text, () => starts), hidden };
}

const LEET_CHAR = /[0134578@$]/g;
/** A character of a leet word: a lower-case letter or one of the characters LEET spells out. */
const inLeetWord = (c: number): boolean =>
  (c >= 97 && c <= 122) || c === 48 || c === 49 || c === 51 || c === 52 || c === 53 || c === 55 || c === 56 || c === 64 || c === 36;

/**
 * The view with leetspeak words ("1gn0re") spelled out, or null when it has none. Same length, same
 * offsets. A leet word is a run of at least four letters and leet characters with two letters or
 * more; only the runs around a leet character are looked at, so prose without digits costs one search.
 */
export function unleet(view: string): string | null {
  let out = '';
  let copied = 0;
  LEET_CHAR.lastIndex = 0;
  for (let m = LEET_CHAR.exec(view); m !== null; m = LEET_CHAR.exec(view)) {
    let start = m.index;
    while (start > 0 && inLeetWord(view.charCodeAt(start - 1))) start--;
    let end = m.index + 1;
    while (end < view.length && inLeetWord(view.charCodeAt(end))) end++;
    LEET_CHAR.lastIndex = end;
    const w = view.slice(start, end);
    if (w.length < 4 || w.replace(/[^a-z]/g, '').length < 2) continue;
    out += view.slice(copied, start) + w.replace(/[0134578@$]/g, (c) => LEET[c]!);
    copied = end;
  }
  return copied === 0 ? null : out + view.slice(copied);
}

/** What a text hides, without building its view when it is ASCII (nothing can hide there). */
export function hiddenIn(text: string): Hidden {
  return NON_ASCII.test(text) ? normalise(text).hidden : { zeroWidth: 0, bidi: 0, tags: '', selectors: [], mixedWords: 0 };
}
