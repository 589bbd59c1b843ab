// The texts the secret rules read besides the text itself, each with a way back to the original
// span: the text without invisible characters and with look-alike letters folded (a zero-width
// space inside a token, a Cyrillic А in AKIA), the decoded content of base64 runs and of
// percent-encoding (once, bounded), and the text with vendor prefixes put back in their case
// ("GHP_" + an intact body). What a change of case makes of a secret is decided in secret-candidates.ts
// (caseDestroyed): only a change that can be undone hides one.
import { LOOKALIKE_LETTERS } from './lookalike-letters.js';

export interface SecretView {
  readonly text: string;
  /** The original span a [start, end) of this view's text stands for. */
  span(start: number, end: number): [number, number];
  /** [start, end) (in this view) of vendor prefixes put back in their case; findings over one are checked. */
  readonly recased?: ReadonlyArray<readonly [number, number]>;
}

const IDENTITY = (start: number, end: number): [number, number] => [start, end];

// Characters that print as nothing or as a space-less join: zero-width, soft hyphen, word joiner,
// BOM, bidi controls, variation selectors and tag characters.
const INVISIBLE_POINTS = new Set([0x00ad, 0x034f, 0x115f, 0x1160, 0x180e, 0x3164, 0xfeff, 0xffa0]);
const INVISIBLE_RANGES: ReadonlyArray<readonly [number, number]> = [
  [0x200b, 0x200f],
  [0x202a, 0x202e],
  [0x2060, 0x2064],
  [0x2066, 0x2069],
  [0xfe00, 0xfe0f],
  [0xe0000, 0xe007f],
];
const invisible = (cp: number): boolean => INVISIBLE_POINTS.has(cp) || INVISIBLE_RANGES.some(([a, b]) => cp >= a && cp <= b);
// One pass to tell whether a text holds anything to normalise (most non-ASCII text holds none):
// built from the tables, so that the class lists exactly what normalisedView changes.
const SUSPECT = new RegExp(
  `[${[
    ...[...INVISIBLE_POINTS].map((cp) => String.fromCodePoint(cp)),
    ...INVISIBLE_RANGES.filter(([a]) => a <= 0xffff).map(([a, b]) => `${String.fromCodePoint(a)}-${String.fromCodePoint(b)}`),
    ...Object.keys(LOOKALIKE_LETTERS)
      .flatMap((l) => [l, l.toUpperCase()])
      .filter((l) => l.charCodeAt(0) > 0x7f), // the upper case of dotless ı is I
    '\uff01-\uff5e',
  ].join('')}]|\udb40[\udc00-\udc7f]`,
);

/** A look-alike letter of another script (or a fullwidth ASCII form) as the Latin letter, case kept. */
function latin(ch: string): string | null {
  const code = ch.charCodeAt(0);
  if (code >= 0xff01 && code <= 0xff5e) return String.fromCharCode(code - 0xfee0);
  const lower = ch.toLowerCase();
  const mapped = LOOKALIKE_LETTERS[lower];
  if (mapped === undefined) return null;
  return lower === ch ? mapped : mapped.toUpperCase();
}

/** The text without invisible characters, look-alikes folded; null when there is nothing to change. */
export function normalisedView(text: string): SecretView | null {
  if (!SUSPECT.test(text)) return null;
  let out = '';
  const origin: number[] = [];
  let changed = false;
  for (let i = 0; i < text.length; ) {
    const cp = text.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const width = ch.length;
    if (invisible(cp)) changed = true;
    else {
      const folded = cp > 0x7f ? latin(ch) : null;
      if (folded !== null) changed = true;
      const put = folded ?? ch;
      for (let k = 0; k < put.length; k++) origin.push(i);
      out += put;
    }
    i += width;
  }
  if (!changed) return null;
  origin.push(text.length);
  return { text: out, span: (start, end) => [origin[start]!, end > start ? nextAfter(origin, end - 1, text) : origin[start]!] };
}

function nextAfter(origin: readonly number[], last: number, text: string): number {
  const at = origin[last]!;
  return at + (text.codePointAt(at)! > 0xffff ? 2 : 1);
}

// Decoding is bounded: runs of at least 24 base64 characters (18 bytes: shorter ones hold no key
// worth the work), at most 64 runs and 64 KB decoded per text, one level deep. A run whose bytes are
// not mostly printable text (an image, a hash, random bytes) is left out.
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{24,}={0,2}/g;
const PERCENT = /%[0-9A-Fa-f]{2}/;
const MAX_RUNS = 64;
const MAX_DECODED = 64 * 1024;

function printable(s: string): boolean {
  if (s.length === 0 || s.includes('\ufffd')) return false;
  let ok = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c === 9 || c === 10 || c === 13 || c > 0x9f) ok++;
  }
  return ok / s.length >= 0.95;
}

interface Part {
  readonly at: number;
  readonly from: number;
  readonly to: number;
}

/** Each match of `runs` that `decode` turns into text, one after another, mapped back to its whole match. */
function decodedRuns(text: string, runs: RegExp, decode: (run: string) => string | null): SecretView | null {
  const parts: Part[] = [];
  let out = '';
  let seen = 0;
  runs.lastIndex = 0;
  for (let m = runs.exec(text); m !== null && seen < MAX_RUNS && out.length < MAX_DECODED; m = runs.exec(text)) {
    seen++;
    const decoded = m[0].length > MAX_DECODED ? null : decode(m[0]);
    if (decoded === null || !printable(decoded)) continue;
    parts.push({ at: out.length, from: m.index, to: m.index + m[0].length });
    out += decoded + '\n';
  }
  if (parts.length === 0) return null;
  return { text: out, span: (start) => spanOfPart(parts, start) };
}

function spanOfPart(parts: readonly Part[], start: number): [number, number] {
  let part = parts[0]!;
  for (const p of parts) if (p.at <= start) part = p;
  return [part.from, part.to];
}

/** Base64 and base64url runs decoded to text (base64 of text mixes both cases; one case is a word or hex). */
export function base64View(text: string): SecretView | null {
  return decodedRuns(text, BASE64_RUN, (run) =>
    /[A-Z]/.test(run) && /[a-z]/.test(run) ? Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString('utf8') : null,
  );
}

// A token holding percent-encoding: what a URL, a form body or a query string carries.
const PERCENT_TOKEN = /[^\s"'<>\x60]*%[0-9A-Fa-f]{2}[^\s"'<>\x60]*/g;

/** Percent-encoded tokens decoded (%41 -> A; + stays +). */
export function percentView(text: string): SecretView | null {
  if (!PERCENT.test(text)) return null;
  return decodedRuns(text, PERCENT_TOKEN, (token) => {
    try {
      return decodeURIComponent(token);
    } catch {
      return token.replace(/%([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    }
  });
}

/**
 * The text with each vendor prefix that stands at a token's start in another case put back in its
 * own ("GHP_" -> "ghp_", "akia" -> "AKIA"): same length, so offsets do not move. `prefixes` maps a
 * lower-case prefix to its case in the vendor's format; `at` lists where lower-cased keywords start.
 */
export function recasedView(text: string, hits: ReadonlyArray<{ at: number; prefix: string }>): SecretView | null {
  const recased: Array<[number, number]> = [];
  let out = text;
  for (const { at, prefix } of hits) {
    const written = text.slice(at, at + prefix.length);
    if (written === prefix || /[A-Za-z0-9]/.test(text[at - 1] ?? '')) continue;
    out = out.slice(0, at) + prefix + out.slice(at + prefix.length);
    recased.push([at, at + prefix.length]);
  }
  return recased.length === 0 ? null : { text: out, span: IDENTITY, recased };
}

/** The views a text is also read as (the text itself not included), each built only when it can differ. */
export function decodedViews(text: string): SecretView[] {
  const out: SecretView[] = [];
  const normalised = normalisedView(text);
  if (normalised !== null) out.push(normalised);
  const base = normalised?.text ?? text;
  const back = normalised ?? null;
  for (const decoded of [base64View(base), percentView(base)]) {
    if (decoded === null) continue;
    out.push(back === null ? decoded : { text: decoded.text, span: (s, e) => back.span(...decoded.span(s, e)) });
  }
  return out;
}
