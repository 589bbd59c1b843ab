// HTML attachments: the text a reader sees. One left-to-right pass, linear in the input: tags
// are dropped, script and style are dropped with their content, comments are dropped, entities
// are decoded. Inline tags join without a gap so `j<b>ane</b>@x.com` still reads as an address.

import { clip } from './text.js';

const INLINE = new Set([
  'a',
  'abbr',
  'b',
  'bdi',
  'bdo',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'ins',
  'kbd',
  'mark',
  'q',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
]);
const CLOSERS: Readonly<Record<string, RegExp>> = {
  script: /<\/script[\s/>]/gi,
  style: /<\/style[\s/>]/gi,
};

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  commat: '@',
  period: '.',
  lowbar: '_',
  hyphen: '-',
  dash: '\u2010',
  colon: ':',
  semi: ';',
  comma: ',',
  sol: '/',
  bsol: '\\',
  plus: '+',
  equals: '=',
  num: '#',
  dollar: '$',
  percnt: '%',
  excl: '!',
  quest: '?',
  lpar: '(',
  rpar: ')',
  lsqb: '[',
  rsqb: ']',
  lcub: '{',
  rcub: '}',
  verbar: '|',
  ast: '*',
  tilde: '~',
  grave: '`',
  copy: '\u00a9',
  reg: '\u00ae',
  trade: '\u2122',
  hellip: '\u2026',
  mdash: '\u2014',
  ndash: '\u2013',
  lsquo: '\u2018',
  rsquo: '\u2019',
  ldquo: '\u201c',
  rdquo: '\u201d',
  bull: '\u2022',
  middot: '\u00b7',
  euro: '\u20ac',
  pound: '\u00a3',
  yen: '\u00a5',
  cent: '\u00a2',
  sect: '\u00a7',
  deg: '\u00b0',
  times: '\u00d7',
  divide: '\u00f7',
  laquo: '\u00ab',
  raquo: '\u00bb',
  shy: '',
  zwj: '',
  zwnj: '',
  lrm: '',
  rlm: '',
  ensp: ' ',
  emsp: ' ',
  thinsp: ' ',
};
// Numeric references without the semicolon are honoured because browsers honour them.
const ENTITY = /&(?:#(\d{1,8});?|#[xX]([0-9a-fA-F]{1,7});?|([A-Za-z][A-Za-z0-9]{1,31});)/g;

function fromCodePoint(cp: number): string {
  if (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return '\ufffd';
  return String.fromCodePoint(cp);
}

export function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, dec?: string, hex?: string, name?: string) => {
    if (dec !== undefined) return fromCodePoint(Number(dec));
    if (hex !== undefined) return fromCodePoint(parseInt(hex, 16));
    return NAMED[name!.toLowerCase()] ?? whole;
  });
}

/** Index just past the `>` closing a tag that opened at `from`, skipping quoted attribute values. */
function tagEnd(html: string, from: number): number {
  let quote = 0;
  for (let k = from; k < html.length; k++) {
    const c = html.charCodeAt(k);
    if (quote !== 0) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) quote = c;
    else if (c === 0x3e) return k + 1;
  }
  return html.length;
}

function isNameChar(c: number, first: boolean): boolean {
  const letter = (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a);
  return first ? letter : letter || (c >= 0x30 && c <= 0x39) || c === 0x2d || c === 0x3a;
}

interface Step {
  next: number;
  emit: string;
}

/** What the markup starting at `lt` (a `<`) contributes, and where text resumes. */
function markup(html: string, lt: number): Step {
  if (html.startsWith('<!--', lt)) {
    const end = html.indexOf('-->', lt + 4);
    return { next: end === -1 ? html.length : end + 3, emit: '' };
  }
  const second = html.charCodeAt(lt + 1);
  if (second === 0x21 || second === 0x3f) {
    // <! and <?
    const end = html.indexOf('>', lt);
    return { next: end === -1 ? html.length : end + 1, emit: '' };
  }
  const closing = second === 0x2f;
  const nameStart = closing ? lt + 2 : lt + 1;
  let nameEnd = nameStart;
  while (nameEnd < html.length && isNameChar(html.charCodeAt(nameEnd), nameEnd === nameStart)) nameEnd++;
  if (nameEnd === nameStart) return { next: lt + 1, emit: '<' }; // a bare `<` in text
  const name = html.slice(nameStart, Math.min(nameEnd, nameStart + 16)).toLowerCase();
  let next = tagEnd(html, nameEnd);
  const closer = CLOSERS[name];
  if (!closing && closer !== undefined && html.charCodeAt(next - 2) !== 0x2f) {
    closer.lastIndex = next;
    const found = closer.exec(html);
    next = found === null ? html.length : tagEnd(html, found.index + 2);
  }
  return { next, emit: INLINE.has(name) ? '' : '\n' };
}

function tidy(text: string): string {
  return text
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{2,}/g, '\n')
    .trim();
}

/** Visible text of an HTML document, cut at `maxChars`. */
export function extractHtmlText(html: string, maxChars: number): { text: string; truncated: boolean } {
  // Collapsing whitespace shrinks the text afterwards, so read somewhat past the cut first.
  const readLimit = maxChars * 2 + 1024;
  const parts: string[] = [];
  let length = 0;
  let i = 0;
  while (i < html.length && length <= readLimit) {
    const lt = html.indexOf('<', i);
    const stop = lt === -1 ? html.length : lt;
    if (stop > i) {
      const piece = decodeEntities(html.slice(i, stop));
      parts.push(piece);
      length += piece.length;
    }
    if (lt === -1) {
      i = html.length;
      break;
    }
    const step = markup(html, lt);
    parts.push(step.emit);
    length += step.emit.length;
    i = step.next;
  }
  const text = tidy(parts.join(''));
  if (text.length > maxChars) return clip(text, maxChars);
  return { text, truncated: i < html.length };
}
