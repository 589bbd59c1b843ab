// Local, explainable tool-poisoning heuristics run by the scan. Each finding names its heuristic
// (`code`), says what it saw (`detail`) and where: 'name', 'title', 'annotations.title', 'description', 'inputSchema'
// (the schema as a whole) or 'inputSchema.' + an RFC 6901 pointer. A tool with any finding is a
// poisoning suspect. Pure: no I/O, never throws on what a server sent. The data is poisoning-rules.ts;
// whether a URL is an exfiltration risk is poisoning-urls.ts, whether the input schema compiles
// schema-validity.ts.
//
// Heuristics:
//   instruction_*            phrases aimed at the model (PHRASE_RULES, several languages) in the name-free
//                            text a model reads: title, description, and every string and key of the
//                            input schema (description, title, default, enum, examples, const, $comment,
//                            custom keywords ...) except identifiers ($schema, $id, $ref, format, pattern).
//                            Also run on text hidden in tag characters.
//   instruction_sensitive_access  additionally: a secret-holding path (SENSITIVE_PATH) next to an
//                            access verb in prose, or anywhere in a schema value (default/const/enum/examples).
//   instruction_exfiltration additionally: an e-mail address (not a reserved example domain) shortly
//                            after send/forward/cc/bcc.
//   unicode_tag_characters, zero_width_characters, bidi_control_characters, variation_selector_run
//                            hidden Unicode anywhere, the name included. Not counted: a zero-width joiner
//                            inside an emoji sequence, ZWJ/ZWNJ between letters of a non-Latin script, a
//                            leading BOM, LRM/RLM/ALM in text that has right-to-left letters.
//   exfiltration_url         URLs in prose and schema values. Docs links are not flagged: an https URL is
//                            a finding only if its host catches requests (CAPTURE_HOSTS, chat webhooks),
//                            is a raw non-loopback IP address, it carries credentials, or a placeholder or
//                            query key looks like data ({contents}, ?token=YOUR_TOKEN). Plain http (or ws,
//                            ftp) to a non-loopback host is a finding. In a schema default/const of a
//                            destination-like parameter (webhook_url, callback, report_endpoint) any real
//                            URL is a finding. RFC 2606 example domains are never findings.
//   tool_shadowing           the name equals another server's tool name, exactly or after normalisation
//                            (NFKC, invisibles dropped, look-alikes folded, case and separators ignored).
//   confusable_name          the name uses look-alike letters (Cyrillic 'ѕ' for 's').
//   description_changed      the description differs from the one recorded at the last scan.
//   invalid_input_schema     ajv 8 cannot compile the input schema (JSON Schema 2020-12 unless it declares
//                            draft-07 or 2019-09, which the SDKs emit), or its root type is not object.
//   scan_truncated           the schema or description exceeds LIMITS (depth, nodes, text, subschemas to
//                            compile), so part of it went unread or unchecked: fails closed.
import * as R from './poisoning-rules.js';
import { hostIn, urlRisk, words } from './poisoning-urls.js';
import { schemaProblem } from './schema-validity.js';

export const POISONING_CODES = [
  'instruction_override',
  'instruction_concealment',
  'instruction_sensitive_access',
  'instruction_exfiltration',
  'instruction_markup',
  'instruction_tool_hijack',
  'unicode_tag_characters',
  'zero_width_characters',
  'bidi_control_characters',
  'variation_selector_run',
  'exfiltration_url',
  'tool_shadowing',
  'confusable_name',
  'description_changed',
  'invalid_input_schema',
  'scan_truncated',
] as const;
export type PoisoningCode = (typeof POISONING_CODES)[number];

export interface PoisoningFinding {
  readonly code: PoisoningCode;
  readonly detail: string;
  readonly where: string;
}

export interface PoisoningContext {
  /** Names of the tools of the project's other servers. */
  readonly otherServersToolNames: ReadonlySet<string>;
  /** The description recorded at the last scan; null or absent when there is none to compare with (a new tool). */
  readonly previousDescription?: string | null;
}

export interface PoisonableTool {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  /** Only its `title` is text a model may be shown; the hints are the classifier's business. */
  readonly annotations?: Readonly<Record<string, unknown>>;
}

/** Bounds of one tool's scan; past them the rest is unread and the tool is a suspect. */
export const LIMITS = {
  maxDepth: 64,
  maxNodes: 20_000,
  maxTextChars: 1_000_000,
  maxCompiledSubschemas: 1_000,
  maxFindings: 100,
  detailChars: 160,
} as const;

type TextKind = 'prose' | 'value' | 'identifier';
const IDENTIFIER_KEYWORDS = new Set([
  '$schema',
  '$id',
  '$ref',
  '$dynamicRef',
  '$anchor',
  '$dynamicAnchor',
  '$vocabulary',
  'format',
  'pattern',
  'type',
  'contentEncoding',
  'contentMediaType',
]);
const VALUE_KEYWORDS = new Set(['default', 'const', 'enum', 'examples']);
const SUBSCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);

const PHRASES = R.PHRASE_RULES.map((r) => ({ ...r, re: new RegExp(r.pattern, 'u') }));
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

const clip = (s: string): string => {
  const shown = s.replace(/[\u0000-\u001f\u007f]/gu, ' ');
  return shown.length > LIMITS.detailChars ? `${shown.slice(0, LIMITS.detailChars)}…` : shown;
};
const codePoint = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;

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
function fold(s: string): string {
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

function hiddenUnicode(text: string, where: string): PoisoningFinding[] {
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
function textFindings(text: string, where: string, kind: TextKind, owner: string | null = null): PoisoningFinding[] {
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

// ---- the input schema ----

const pointerPart = (key: string): string => key.replace(/~/gu, '~0').replace(/\//gu, '~1');
const schemaWhere = (pointer: string): string => (pointer === '' ? 'inputSchema' : `inputSchema.${pointer}`);

/** What a node of the schema is: a (sub)schema, a map of named subschemas, or data (default, enum ...). */
type Role = 'schema' | 'map' | 'value';
interface Frame {
  readonly node: unknown;
  readonly pointer: string;
  readonly depth: number;
  readonly role: Role;
  readonly owner: string | null;
  readonly key: string | null;
}

function childFrame(f: Frame, key: string, value: unknown, isArray: boolean): Frame {
  const pointer = `${f.pointer}/${pointerPart(key)}`;
  const depth = f.depth + 1;
  if (isArray) return { node: value, pointer, depth, role: f.role, owner: f.owner, key: f.key };
  if (f.role === 'value') return { node: value, pointer, depth, role: 'value', owner: f.owner, key };
  if (f.role === 'map')
    return { node: value, pointer, depth, role: 'schema', owner: f.key === '$defs' || f.key === 'definitions' ? f.owner : key, key };
  const role: Role = VALUE_KEYWORDS.has(key)
    ? 'value'
    : SUBSCHEMA_MAPS.has(key) && typeof value === 'object' && value !== null && !Array.isArray(value)
      ? 'map'
      : 'schema';
  return { node: value, pointer, depth, role, owner: f.owner, key };
}

/** textFindings, remembered per scan for short strings: schemas repeat their keys and small values. */
function memoised(): typeof textFindings {
  const memo = new Map<string, PoisoningFinding[]>();
  return (text, where, kind, owner = null) => {
    if (text.length > 200) return textFindings(text, where, kind, owner);
    const key = `${kind}\u0000${owner ?? ''}\u0000${text}`;
    let found = memo.get(key);
    if (!found) memo.set(key, (found = textFindings(text, '', kind, owner)));
    return found.map((f) => ({ ...f, where }));
  };
}

/**
 * Walks the whole schema within LIMITS, checking every string and key. Says why it had to stop, if
 * it did, and how many subschemas it saw (what compiling costs).
 */
function walkSchema(schema: unknown, out: PoisoningFinding[]): { truncated: string | null; subschemas: number } {
  const stack: Frame[] = [{ node: schema, pointer: '', depth: 0, role: 'schema', owner: null, key: null }];
  const check = memoised();
  let nodes = 0;
  let chars = 0;
  let subschemas = 0;
  let truncated: string | null = null;
  while (stack.length > 0) {
    const f = stack.pop()!;
    if (typeof f.node === 'string') {
      if (f.node.length > LIMITS.maxTextChars - chars)
        return { truncated: `more than ${LIMITS.maxTextChars} characters of text`, subschemas };
      chars += f.node.length;
      const kind: TextKind = f.role === 'value' ? 'value' : f.key !== null && IDENTIFIER_KEYWORDS.has(f.key) ? 'identifier' : 'prose';
      if (f.node !== '') out.push(...check(f.node, schemaWhere(f.pointer), kind, f.owner));
      continue;
    }
    if (typeof f.node !== 'object' || f.node === null) continue;
    if (f.depth >= LIMITS.maxDepth) {
      truncated ??= `deeper than ${LIMITS.maxDepth} levels at ${f.pointer}`;
      continue;
    }
    const isArray = Array.isArray(f.node);
    if (f.role === 'schema' && !isArray) subschemas += 1;
    const entries: Array<[string, unknown]> = isArray ? (f.node as unknown[]).map((v, i) => [String(i), v]) : Object.entries(f.node);
    // Members count when they are queued, so one object with a million keys is refused at once.
    if ((nodes += entries.length) > LIMITS.maxNodes) return { truncated: `more than ${LIMITS.maxNodes} nodes`, subschemas };
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, value] = entries[i]!;
      const child = childFrame(f, key, value, isArray);
      if (!isArray) {
        chars += key.length;
        out.push(...check(key, schemaWhere(child.pointer), f.role === 'value' ? 'value' : 'prose'));
      }
      stack.push(child);
    }
  }
  return { truncated, subschemas };
}

function schemaValidity(schema: Readonly<Record<string, unknown>>): PoisoningFinding[] {
  const problem = schemaProblem(schema);
  return problem ? [{ code: problem.code, where: 'inputSchema', detail: clip(problem.detail) }] : [];
}

// ---- the tool ----

function nameFindings(name: string, others: ReadonlySet<string>): PoisoningFinding[] {
  const out = hiddenUnicode(name, 'name');
  const nfkc = name.normalize('NFKC').toLowerCase();
  const folded = fold(nfkc);
  if (folded !== nfkc) out.push({ code: 'confusable_name', where: 'name', detail: clip(`"${name}" reads as "${folded}"`) });
  if (others.has(name)) {
    out.push({ code: 'tool_shadowing', where: 'name', detail: clip(`another server has a tool named "${name}"`) });
  } else {
    const mine = normaliseToolName(name);
    for (const other of others) {
      if (mine !== '' && normaliseToolName(other) === mine) {
        out.push({
          code: 'tool_shadowing',
          where: 'name',
          detail: clip(`"${name}" matches another server's "${other}" after normalisation`),
        });
        break;
      }
    }
  }
  return out;
}

export function poisoningFindings(tool: PoisonableTool, context: PoisoningContext): PoisoningFinding[] {
  const all: PoisoningFinding[] = [...nameFindings(tool.name, context.otherServersToolNames)];
  if (typeof tool.title === 'string') all.push(...textFindings(tool.title, 'title', 'prose'));
  if (typeof tool.annotations?.title === 'string') all.push(...textFindings(tool.annotations.title, 'annotations.title', 'prose'));
  if (typeof tool.description === 'string') {
    const text = tool.description.slice(0, LIMITS.maxTextChars);
    all.push(...textFindings(text, 'description', 'prose'));
    if (tool.description.length > LIMITS.maxTextChars)
      all.push({
        code: 'scan_truncated',
        where: 'description',
        detail: `description longer than ${LIMITS.maxTextChars} characters; the rest was not read`,
      });
  }
  const previous = context.previousDescription;
  if (typeof previous === 'string' && previous !== (tool.description ?? '')) {
    all.push({
      code: 'description_changed',
      where: 'description',
      detail: `description changed since the last scan (${previous.length} -> ${(tool.description ?? '').length} characters)`,
    });
  }
  const { truncated, subschemas } = walkSchema(tool.inputSchema, all);
  if (truncated)
    all.push({
      code: 'scan_truncated',
      where: 'inputSchema',
      detail: `${truncated}; the rest was not read and the schema was not compiled`,
    });
  else if (subschemas > LIMITS.maxCompiledSubschemas)
    all.push({
      code: 'scan_truncated',
      where: 'inputSchema',
      detail: `${subschemas} subschemas, more than ${LIMITS.maxCompiledSubschemas}: not compiled`,
    });
  else all.push(...schemaValidity(tool.inputSchema));
  const seen = new Set<string>();
  return all
    .filter((f) => {
      const key = `${f.code}\u0000${f.where}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(0, LIMITS.maxFindings);
}

export const isPoisoningSuspect = (findings: readonly PoisoningFinding[]): boolean => findings.length > 0;
