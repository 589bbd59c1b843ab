// RE2 matching for the detectors: every match of a compiled pattern in a text, with UTF-16 offsets
// (RE2 counts code points) and submatches only when asked, on text made well formed first.
import type { RE2 } from 're2-wasm';
import { re2Wrapper } from './re2-heap.js';

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** RE2 matches nothing in a string holding a lone surrogate; U+FFFD keeps every offset where it was. */
export function wellFormed(text: string): string {
  return /[\uD800-\uDFFF]/.test(text) ? text.replace(LONE_SURROGATE, '\uFFFD') : text;
}

export interface Re2Match {
  /** UTF-16 offsets into the scanned text. */
  readonly start: number;
  readonly end: number;
  /** [whole match, group 1, ...]; undefined for a group that took no part; only the whole match without `groups`. */
  readonly groups: ReadonlyArray<string | undefined>;
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 === s.length) n++;
  }
  return n;
}

/**
 * Every match of an RE2 in a well-formed text, at most `limit`, with submatches only if asked.
 * RE2 counts offsets in code points; they are turned into UTF-16 offsets here. Each call copies
 * its input into WebAssembly memory, so each search gets only the rest of the text, from one
 * character before the cursor (for \b and ^) and at most `lookahead` characters past it: a caller
 * that knows its matches are shorter saves the copies; a match reaching the cut is searched again
 * in the whole rest.
 */
export function re2Matches(re: RE2, text: string, limit: number, groups = true, lookahead = Infinity): Re2Match[] {
  const out: Re2Match[] = [];
  const wrapper = re2Wrapper(re);
  const offset = /[\uD800-\uDBFF]/.test(text) ? unitOffset : (_: string, cp: number): number => cp;
  for (let cursor = 0; out.length < limit && cursor <= text.length; ) {
    const from = cursor > 0 ? cursor - (isLowSurrogate(text.charCodeAt(cursor - 1)) ? 2 : 1) : 0;
    let slice = text.slice(from, cursor + lookahead);
    let m = wrapper.match(slice, codePoints(text.slice(from, cursor)), groups);
    if (slice.length < text.length - from && (m.index < 0 || offset(slice, m.index) + m.match.length === slice.length)) {
      slice = text.slice(from);
      m = wrapper.match(slice, codePoints(text.slice(from, cursor)), groups);
    }
    if (m.index < 0) break;
    const start = from + offset(slice, m.index);
    out.push({ start, end: start + m.match.length, groups: [m.match, ...m.groups] });
    cursor = start + Math.max(m.match.length, isHighSurrogate(text.charCodeAt(start)) ? 2 : 1);
  }
  return out;
}

const isHighSurrogate = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLowSurrogate = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** UTF-16 offset of code point `cp` in a well-formed string. */
function unitOffset(s: string, cp: number): number {
  let unit = 0;
  for (let n = 0; n < cp && unit < s.length; n++) unit += isHighSurrogate(s.charCodeAt(unit)) ? 2 : 1;
  return unit;
}
