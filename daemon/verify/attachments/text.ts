// Text attachments: deciding whether bytes are text at all, and which text kind (JSON, HTML, CSV,
// plain) they hold. Content decides; the declared type only breaks ties among text kinds.

export type TextKind = 'plain' | 'csv' | 'json' | 'html' | 'xml';

export const TEXT_MIME: Readonly<Record<TextKind, string>> = {
  plain: 'text/plain',
  csv: 'text/csv',
  json: 'application/json',
  html: 'text/html',
  xml: 'application/xml',
};

function decodeStrict(label: string, bytes: Uint8Array): string | null {
  try {
    return new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return null;
  }
}

// C0 controls other than tab, line feed, vertical tab, form feed, carriage return and escape.
const BINARY_CONTROLS = /[\x00-\x08\x0E-\x1A\x1C-\x1F]/;

/**
 * The text these bytes hold, or null when they are binary. UTF-8 (with or without BOM) and
 * UTF-16 with a BOM are accepted when they decode cleanly and carry no NUL. Bytes that are not
 * UTF-8 but contain no control characters are read as windows-1252, which is what spreadsheet
 * CSV exports usually are; refusing them would leave such files unscanned.
 */
export function decodeText(bytes: Uint8Array): string | null {
  let text: string | null;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) text = decodeStrict('utf-8', bytes.subarray(3));
  else if (bytes[0] === 0xff && bytes[1] === 0xfe) text = decodeStrict('utf-16le', bytes.subarray(2));
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) text = decodeStrict('utf-16be', bytes.subarray(2));
  else {
    if (bytes.indexOf(0) !== -1) return null; // the usual verdict on binary, found at memchr speed
    text = decodeStrict('utf-8', bytes);
    if (text === null) {
      const single = new TextDecoder('windows-1252').decode(bytes);
      return BINARY_CONTROLS.test(single) ? null : single;
    }
  }
  if (text === null || text.includes('\0')) return null;
  return text;
}

/** The media type without parameters, lower case; '' when absent. */
export function essence(declared: string | null | undefined): string {
  return (declared ?? '').split(';', 1)[0]!.trim().toLowerCase();
}

const HTML_DECLARED = new Set(['text/html', 'application/xhtml+xml']);
const CSV_DECLARED = new Set(['text/csv', 'text/tab-separated-values', 'application/csv']);
const HTML_START = /^<(?:!doctype\s+html|html[\s>])/i;
const HTML_ROOT = /<(?:html|head|body)[\s>]/i;
const SNIFF_WINDOW = 4096;

// JSON.parse takes seconds on millions of nested brackets; nothing real nests that deep, and
// such text is still scanned, as plain text.
const MAX_JSON_DEPTH = 512;

function nestsTooDeep(text: string): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > MAX_JSON_DEPTH) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

function isJson(text: string): boolean {
  const first = text.trimStart()[0];
  if ((first !== '{' && first !== '[') || nestsTooDeep(text)) return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// Only strong signals make a text HTML: visible-text extraction drops script and style, so a
// plain-text upload that merely mentions `<script>` must not lose what follows it.
function isHtml(head: string, declared: string): boolean {
  let rest = head.trimStart();
  while (rest.startsWith('<!--')) {
    const end = rest.indexOf('-->', 4);
    rest = end === -1 ? '' : rest.slice(end + 3).trimStart();
  }
  if (HTML_START.test(rest) || HTML_ROOT.test(head)) return true;
  return HTML_DECLARED.has(declared) && /<[a-z!/]/i.test(head);
}

function isCsv(text: string): boolean {
  const lines = text
    .slice(0, SNIFF_WINDOW)
    .split(/\r?\n/)
    .slice(0, 20)
    .filter((l) => l.length > 0);
  if (text.length > SNIFF_WINDOW && lines.length > 1) lines.pop(); // the window may cut the last line
  if (lines.length < 2) return false;
  return [',', ';', '\t'].some((sep) => {
    const count = lines[0]!.split(sep).length - 1;
    return count > 0 && lines.every((l) => l.split(sep).length - 1 === count);
  });
}

/** Which kind of text this is. `sniffedXml` is true when file-type recognised an XML prolog. */
export function classifyText(text: string, declaredType: string | null | undefined, sniffedXml = false): TextKind {
  const declared = essence(declaredType);
  const head = text.slice(0, SNIFF_WINDOW);
  // JSON first: a JSON document that carries HTML in a string value is still JSON.
  if (isJson(text)) return 'json';
  if (isHtml(head, declared)) return 'html';
  if (sniffedXml || head.trimStart().startsWith('<?xml')) return 'xml';
  if (CSV_DECLARED.has(declared) || isCsv(text)) return 'csv';
  return 'plain';
}

/** At most `max` UTF-16 units of `text`, never ending inside a surrogate pair. */
export function clip(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  let end = Math.max(0, max);
  const last = text.charCodeAt(end - 1);
  if (end > 0 && last >= 0xd800 && last <= 0xdbff) end -= 1;
  return { text: text.slice(0, end), truncated: true };
}
