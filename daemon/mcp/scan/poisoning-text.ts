// The poisoning heuristics that read one piece of text (poisoning.ts): hidden Unicode, phrases aimed
// at the model, sensitive paths, e-mail recipients and risky URLs. Pure; the data is poisoning-rules.ts.
import { clip, codePoint, type PoisoningFinding } from './poisoning-finding.js';
import { PHRASE_RULES } from './poisoning-phrases.js';
import * as R from './poisoning-rules.js';
import { hostIn, urlRisk, words } from './poisoning-urls.js';

export type TextKind = 'prose' | 'value' | 'identifier';

const PHRASES = PHRASE_RULES.map((r) => ({ ...r, re: new RegExp(r.pattern, 'u') }));
const SENSITIVE = new RegExp(R.SENSITIVE_PATH, 'gu');
const ACCESS = new RegExp(R.ACCESS_VERB, 'u');
const INVISIBLE =
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: U+034F (combining grapheme joiner) is listed on purpose, as an invisible character of its own
  /[\u{E0000}-\u{E007F}\u200B-\u200F\u2060-\u2064\uFEFF\u180E\u00AD\u034F\u115F\u1160\u3164\uFFA0\u202A-\u202E\u2066-\u2069\u061C\uFE00-\uFE0F\u{E0100}-\u{E01EF}]/gu;
const URL_IN_TEXT = /\b(?:https?|wss?|ftp):\/\/[^\s"'`\\]+/giu;
// An address is looked for only around an '@', so text without one costs nothing.
const EMAIL_LOCAL = /[\w.+-]{1,64}$/u;
const EMAIL_DOMAIN = /^@((?:[\w-]{1,63}\.){1,8}[a-z]{2,24})\b/u;
const SEND_BEFORE = /\b(?:send|sends|sent|forward|forwards|copy|cc|bcc|e-?mail|mail|report|notify)\b/iu;

/** Text as phrase rules see it: NFKC, invisibles gone, lower case, typographic apostrophes plain, spaces collapsed (newlines kept). */
function prepare(s: string): string {
  return s
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02BC]/gu, "'")
    .replace(/[^\S\n]+/gu, ' ')
    .replace(/\n\s*/gu, '\n');
}
export function fold(s: string): string {
  return s.replace(/[^\x00-\x7f]/gu, (c) => R.CONFUSABLES[c] ?? c);
}
export function normaliseToolName(name: string): string {
  return fold(name.normalize('NFKC').replace(INVISIBLE, '').toLowerCase()).replace(/[^\p{L}\p{N}]/gu, '');
}

// ---- hidden unicode ----

const ANY_ZERO_WIDTH = new RegExp(`[${[...R.ZERO_WIDTH].map((c) => String.fromCodePoint(c)).join('')}]`, 'u');
const isPictographic = (c: string | undefined): boolean => c !== undefined && /\p{Extended_Pictographic}/u.test(c);
const isNonLatinLetter = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{M}]/u.test(c) && !/\p{Script=Latin}/u.test(c);

/** A joiner that belongs where it is: in an emoji sequence, or between letters of a script that uses it. */
function legitimateInvisible(chars: readonly string[], i: number): boolean {
  const c = chars[i];
  if (c === '\uFEFF') return i === 0;
  if (c !== '\u200D' && c !== '\u200C') return false;
  const prev = chars[i - 1] === '\uFE0F' ? chars[i - 2] : chars[i - 1];
  if (c === '\u200D' && isPictographic(prev) && isPictographic(chars[i + 1])) return true;
  return isNonLatinLetter(chars[i - 1]) && isNonLatinLetter(chars[i + 1]);
}

export function hiddenUnicode(text: string, where: string): PoisoningFinding[] {
  const out: PoisoningFinding[] = [];
  const tags = text.match(R.TAG_CHARACTERS);
  if (tags) {
    const hidden = tags
      .map((t) => t.codePointAt(0)! - 0xe0000)
      .filter((c) => c >= 0x20 && c < 0x7f)
      .map((c) => String.fromCharCode(c))
      .join('');
    out.push({
      code: 'unicode_tag_characters',
      where,
      detail: clip(`${tags.length} tag character(s) U+E0000-U+E007F${hidden ? `, hidden text "${hidden}"` : ''}`),
    });
  }
  const chars = ANY_ZERO_WIDTH.test(text) ? [...text] : [];
  const zw = chars.filter((c, i) => R.ZERO_WIDTH.has(c.codePointAt(0)!) && !legitimateInvisible(chars, i));
  if (zw.length > 0)
    out.push({
      code: 'zero_width_characters',
      where,
      detail: `${zw.length} zero-width character(s): ${[...new Set(zw)].map((c) => codePoint(c.codePointAt(0)!)).join(', ')}`,
    });
  const bidi = [...(text.match(R.BIDI_CONTROLS) ?? []), ...(R.RTL_LETTER.test(text) ? [] : (text.match(R.BIDI_MARKS) ?? []))];
  if (bidi.length > 0)
    out.push({
      code: 'bidi_control_characters',
      where,
      detail: `${bidi.length} bidirectional control(s): ${[...new Set(bidi)].map((c) => codePoint(c.codePointAt(0)!)).join(', ')}`,
    });
  const vs = text.match(R.VARIATION_SELECTOR_RUN);
  if (vs)
    out.push({
      code: 'variation_selector_run',
      where,
      detail: `${vs.join('').length} variation selector(s) in ${vs.length} run(s) that can carry hidden bytes`,
    });
  return out;
}

// ---- phrases, sensitive paths, e-mail recipients ----

function phraseFindings(text: string, where: string, kind: TextKind, prefix = ''): PoisoningFinding[] {
  const plain = prepare(text);
  const folded = fold(plain);
  const out: PoisoningFinding[] = [];
  for (const rule of PHRASES) {
    const m = rule.re.exec(plain) ?? (folded !== plain ? rule.re.exec(folded) : null);
    if (m) out.push({ code: rule.code, where, detail: clip(`${prefix}${rule.id}: "${m[0]}"`) });
  }
  for (const m of plain.matchAll(SENSITIVE)) {
    const around = plain.slice(Math.max(0, m.index - R.SENSITIVE_WINDOW), m.index + m[0].length + R.SENSITIVE_WINDOW);
    const verb = kind === 'value' ? null : ACCESS.exec(around);
    if (kind === 'value' || verb) {
      out.push({
        code: 'instruction_sensitive_access',
        where,
        detail: clip(`${prefix}names "${m[0].trim()}"${verb ? ` near "${verb[0]}"` : ' as a value'}`),
      });
      break;
    }
  }
  if (kind === 'prose') {
    const recipient = emailRecipient(plain);
    if (recipient)
      out.push({ code: 'instruction_exfiltration', where, detail: clip(`${prefix}exfiltration.email_recipient: sends to "${recipient}"`) });
  }
  return out;
}

/** The first e-mail address, outside the reserved example domains, shortly after a sending verb. */
function emailRecipient(plain: string): string | null {
  for (let at = plain.indexOf('@'), n = 0; at !== -1 && n < 1000; at = plain.indexOf('@', at + 1), n++) {
    const local = EMAIL_LOCAL.exec(plain.slice(Math.max(0, at - 64), at));
    const domain = EMAIL_DOMAIN.exec(plain.slice(at, at + 300));
    if (!local || !domain || hostIn(domain[1]!, R.RESERVED_DOMAINS)) continue;
    const start = at - local[0].length;
    if (SEND_BEFORE.test(plain.slice(Math.max(0, start - R.SENSITIVE_WINDOW), start))) return `${local[0]}${domain[0]}`;
  }
  return null;
}

// ---- URLs ----

function urlFindings(text: string, where: string, destination: string | null): PoisoningFinding[] {
  for (const m of text.normalize('NFKC').replace(INVISIBLE, '').matchAll(URL_IN_TEXT)) {
    const raw = m[0].replace(/[.,;:!?'")\]]+$/u, '');
    const why = urlRisk(raw, destination);
    if (why) return [{ code: 'exfiltration_url', where, detail: clip(`${raw}: ${why}`) }];
  }
  return [];
}

/** Every heuristic that applies to one piece of text. */
export function textFindings(text: string, where: string, kind: TextKind, owner: string | null = null): PoisoningFinding[] {
  const out = hiddenUnicode(text, where);
  if (kind === 'identifier') return out;
  out.push(...phraseFindings(text, where, kind));
  const tags = text.match(R.TAG_CHARACTERS);
  if (tags)
    out.push(
      ...phraseFindings(tags.map((t) => String.fromCodePoint(t.codePointAt(0)! - 0xe0000)).join(''), where, kind, 'in hidden tag text: '),
    );
  const destination = kind === 'value' && owner && words(owner).some((w) => R.DESTINATION_WORDS.has(w)) ? owner : null;
  out.push(...urlFindings(text, where, destination));
  return out;
}
