// Text hidden inside a text, decoded: runs of base64 or hex (also \x.. and percent-encoding) that
// decode to a sentence of UTF-8, and what Unicode tag characters or variation selectors spell out.
// Each decoded text keeps the span it was hidden in, so a finding points at the encoded run.
import type { Hidden } from './injection-normalise.js';

// Only from the start of a run of base64 characters: a match takes its whole run, so a later start
// inside a run can never match, and without the look-behind every word of prose is rescanned from
// each of its letters (the detector's costliest line on ordinary text).
const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){8,}|(?:\\x[0-9a-fA-F]{2}){4,}|(?:[0-9a-fA-F]{2}[ :,-]){4,}[0-9a-fA-F]{2}|(?:%[0-9a-fA-F]{2}){4,}/g;
const MAX_RUN = 16384;
const MAX_RUNS = 16;
const UTF8 = new TextDecoder('utf-8');
const TEXTUAL = /[\p{L}\p{N}\p{P}\p{Zs}\n\t]/u;

/** Well-formed UTF-8 without control characters (checked here: a failed fatal decode throws, and throwing is slow). */
function plausibleText(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) {
      if ((b < 0x20 && b !== 9 && b !== 10 && b !== 13) || b === 0x7f) return false;
      continue;
    }
    const extra = b >= 0xc2 && b <= 0xdf ? 1 : b >= 0xe0 && b <= 0xef ? 2 : b >= 0xf0 && b <= 0xf4 ? 3 : -1;
    if (extra < 0) return false;
    for (let k = 1; k <= extra; k++) if (((bytes[i + k] ?? 0) & 0xc0) !== 0x80) return false;
    i += extra;
  }
  return true;
}

/** Bytes that read as a sentence of text, or null. */
function asText(bytes: Uint8Array): string | null {
  if (bytes.length < 8 || !plausibleText(bytes)) return null;
  const text = UTF8.decode(bytes);
  if (!text.includes(' ')) return null;
  let ok = 0;
  for (const ch of text) if (TEXTUAL.test(ch)) ok++;
  return ok / [...text].length >= 0.9 ? text : null;
}

function decodeRun(run: string, hex: boolean): string | null {
  if (!hex) return /^[0-9a-fA-F]+$/.test(run) ? null : asText(Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
  const digits = run.replace(/\\x|%|[ :,-]/g, '');
  return digits.length % 2 === 0 ? asText(Buffer.from(digits, 'hex')) : null;
}

/** The last text decoded and what it hid: a data-origin text is asked twice (the rules, then the data rules). */
let last: { text: string; found: ReadonlyArray<{ text: string; span: [number, number] }> } | null = null;

/**
 * Decoded texts hidden in the original text, each with the span it was hidden in. `hidden` is what
 * normalising `text` set aside (a function of the text), so the answer depends on the text alone.
 */
export function hiddenTexts(text: string, hidden: Hidden): ReadonlyArray<{ text: string; span: [number, number] }> {
  if (last !== null && last.text === text) return last.found;
  const found: Array<{ text: string; span: [number, number] }> = [];
  for (const [re, hex] of [
    [BASE64_RUN, false],
    [HEX_RUN, true],
  ] as const) {
    re.lastIndex = 0;
    for (let m = re.exec(text); m !== null && found.length < MAX_RUNS; m = re.exec(text)) {
      if (m[0].length > MAX_RUN) continue;
      const decoded = decodeRun(m[0], hex);
      if (decoded !== null) found.push({ text: decoded, span: [m.index, m.index + m[0].length] });
    }
  }
  if (hidden.tags.length >= 12 || hidden.tags.includes(' ')) found.push({ text: hidden.tags, span: [0, text.length] });
  const smuggled = hidden.selectors.length >= 8 ? asText(Uint8Array.from(hidden.selectors)) : null;
  if (smuggled !== null) found.push({ text: smuggled, span: [0, text.length] });
  last = { text, found };
  return found;
}
