// JSON attachments: the keys, strings and numbers of a document, one `key: value` per line, so
// PII nested anywhere in it reaches the detectors. A linear token scan rather than a walk of the
// parsed value: no recursion to overflow on deep nesting, and numbers keep their exact digits
// (JSON.parse would round a 17-digit account number).

import { clip } from './text.js';

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWs(src: string, i: number): number {
  while (i < src.length && WS.has(src.charCodeAt(i))) i++;
  return i;
}

function stringEnd(src: string, start: number): number {
  let j = start + 1;
  while (j < src.length) {
    const c = src.charCodeAt(j);
    if (c === 0x5c) j += 2;
    else if (c === 0x22) return j;
    else j++;
  }
  return src.length - 1;
}

function isScalarChar(c: number): boolean {
  // digits, letters of true/false/null/exponents, sign and decimal point
  return (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x2b || c === 0x2e || c === 0x45;
}

/**
 * Text of a document that JSON.parse has already accepted, cut at `maxChars`.
 */
export function extractJsonText(src: string, maxChars: number): { text: string; truncated: boolean } {
  let out = '';
  let afterKey = false;
  let i = 0;
  while (i < src.length && out.length <= maxChars) {
    const c = src.charCodeAt(i);
    if (c === 0x22) {
      const end = stringEnd(src, i);
      const value = JSON.parse(src.slice(i, end + 1)) as string;
      const next = skipWs(src, end + 1);
      if (src.charCodeAt(next) === 0x3a) {
        out += `${value}: `;
        afterKey = true;
        i = next + 1;
        continue;
      }
      if (afterKey || value.length > 0) out += `${value}\n`;
      afterKey = false;
      i = end + 1;
    } else if (isScalarChar(c)) {
      let j = i + 1;
      while (j < src.length && isScalarChar(src.charCodeAt(j))) j++;
      const token = src.slice(i, j);
      // Literals carry no content of their own; keep them only to close a `key:` line.
      if (afterKey || (token !== 'true' && token !== 'false' && token !== 'null')) out += `${token}\n`;
      afterKey = false;
      i = j;
    } else {
      if (afterKey && (c === 0x7b || c === 0x5b)) {
        out += '\n';
        afterKey = false;
      }
      i++;
    }
  }
  return clip(out, maxChars);
}
