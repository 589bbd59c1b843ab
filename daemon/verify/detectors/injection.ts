// Prompt injection and jailbreak: one PROMPT_INJECTION finding whose score in [0, 1] combines the
// weighted rules of injection-rules.ts, matched over a normalised copy of the text (NFKD, no accents,
// look-alike letters mapped, invisible characters gone) and over text hidden in base64, hex,
// percent-encoding, Unicode tag characters or variation selectors, plus the signals of hiding itself.
//
// Trade-off: phrase rules are damped when the text writes *about* attacks (the phrase in quotes or
// code, reported as "asks the model to ...", reporting words such as "researchers", "for example"),
// so an article quoting "ignore all previous instructions" passes. An attacker can borrow that voice:
// one quoted override in a text with two reporting words scores 0.27 instead of 0.9. Damping never
// touches hiding signals, and two unquoted attack phrases still reach the flag threshold when damped.
import { z } from 'zod';
import { CONFUSABLE, INJECTION_RULES, LEET, REPORTING_CUES, SIGNAL_WEIGHTS, ZERO_WIDTH } from './injection-rules.js';
import type { InjectionCategory, InjectionRule, SignalName } from './injection-rules.js';
import { WordAutomaton } from './keywords.js';
import type { Detector, Finding } from './types.js';

// ---- normalisation ----

/** A normalised copy of a text, and the original span of each of its characters. */
interface View { readonly text: string; start(i: number): number; end(i: number): number }
interface Hidden { zeroWidth: number; bidi: number; tags: string; selectors: number[]; mixedWords: number }

const MARKS = /\p{M}/gu;
const NON_ASCII = /[^\x00-\x7f]/;
const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || c === 0x85 || c === 0xa0 || c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000;
const isNewline = (c: number): boolean => (c >= 10 && c <= 13) || c === 0x85 || c === 0x2028 || c === 0x2029;
const isLatin = (c: number): boolean => c >= 97 && c <= 122;

interface Folded { readonly text: string; /** A non-Latin letter was mapped to a Latin one. */ readonly confusable: boolean }
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
  if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)) { hidden.bidi++; return 'other'; }
  if (cp >= 0xe0000 && cp <= 0xe007f) { if (cp >= 0xe0020 && cp <= 0xe007e) hidden.tags += String.fromCharCode(cp - 0xe0000); return 'other'; }
  if (cp >= 0xfe00 && cp <= 0xfe0f) { hidden.selectors.push(cp - 0xfe00); return 'other'; }
  if (cp >= 0xe0100 && cp <= 0xe01ef) { hidden.selectors.push(cp - 0xe0100 + 16); return 'other'; }
  return null;
}

/** A view over `starts` (original offset of each view character); ends follow from the source character's width. */
function viewOf(text: string, original: string, starts: () => readonly number[]): View {
  let cache: readonly number[] | null = null;
  const at = (i: number): number => (cache ??= starts())[i] ?? original.length;
  return {
    text,
    start: at,
    end: (i) => { const s = at(i); return s + ((original.codePointAt(s) ?? 0) > 0xffff ? 2 : 1); },
  };
}

/** ASCII text: lower case and collapsed whitespace; the offset map is built only if a rule hits. */
function normaliseAscii(text: string): View {
  const view = text.toLowerCase().replace(/\s+/g, (ws) => (/[\n\r\v\f]/.test(ws) ? '\n' : ' '));
  return viewOf(view, text, () => {
    const starts: number[] = [];
    for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i)) || !isSpace(text.charCodeAt(i - 1))) starts.push(i);
    return starts;
  });
}

function normalise(text: string): { view: View; hidden: Hidden } {
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
      if (last >= 0 && (codes[last] === 32 || codes[last] === 10)) { if (isNewline(c)) codes[last] = 10; return; }
      c = isNewline(c) ? 10 : 32;
    } else if (isLatin(c)) latin = true;
    codes.push(c); starts.push(start);
  };
  for (let i = 0; i < text.length;) {
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const kind = cp < 0x80 ? null : invisible(cp, hidden);
    if (kind !== null) { if (kind === 'zero-width') pendingZeroWidth++; i += width; continue; }
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

const LEET_TOKEN = /[a-z0134578@$]{4,}/g;

/** The view with leetspeak words ("1gn0re") spelled out, or null when it has none. Same length, same offsets. */
function unleet(view: string): string | null {
  let changed = false;
  const out = view.replace(LEET_TOKEN, (w) => {
    const letters = w.replace(/[^a-z]/g, '').length;
    if (letters < 2 || letters === w.length) return w;
    changed = true;
    return w.replace(/[0134578@$]/g, (c) => LEET[c]!);
  });
  return changed ? out : null;
}

// ---- rules ----

interface CompiledRule { readonly rule: InjectionRule; readonly patterns: readonly RegExp[]; readonly unless?: RegExp; readonly unlessAfter?: RegExp }

/** `{Wn}` is up to n filler words; a space is one whitespace character. Bounded repeats keep V8 linear. */
export function compilePattern(source: string, flags = 'g'): RegExp {
  return new RegExp(source.replace(/\{W(\d+)\}/g, '(?:\\S{1,24}\\s){0,$1}').replace(/ /g, '\\s'), flags);
}

const COMPILED: readonly CompiledRule[] = INJECTION_RULES.map((rule) => ({
  rule,
  patterns: rule.patterns.map((p) => compilePattern(p)),
  ...(rule.unless !== undefined ? { unless: compilePattern(rule.unless, '') } : {}),
  ...(rule.unlessAfter !== undefined ? { unlessAfter: compilePattern(rule.unlessAfter, '') } : {}),
}));
const RULE_NAMES = new Set<string>([...INJECTION_RULES.map((r) => r.name), ...Object.keys(SIGNAL_WEIGHTS)]);

interface Hit { readonly name: string; readonly weight: number; readonly start: number; readonly end: number }

const MATCHES_PER_PATTERN = 5;

function firstValidMatch(c: CompiledRule, text: string): RegExpExecArray | null {
  for (const re of c.patterns) {
    re.lastIndex = 0;
    for (let n = 0; n < MATCHES_PER_PATTERN; n++) {
      const m = re.exec(text);
      if (m === null) break;
      if (m[0] === '') { re.lastIndex++; continue; }
      if (c.unless?.test(m[0]) === true) continue;
      const after = text.slice(m.index + m[0].length, m.index + m[0].length + 40);
      if (c.unlessAfter?.test(after) === true) continue;
      return m;
    }
  }
  return null;
}

const PHRASE: ReadonlySet<InjectionCategory> = new Set(['override', 'extraction', 'roleplay', 'delimiter', 'exfiltration']);

// Every rule keyword and reporting cue, found in one pass over a view.
const WORDS = [...new Set([...INJECTION_RULES.flatMap((r) => r.keywords), ...REPORTING_CUES])];
const AUTOMATON = new WordAutomaton(WORDS);
const RULE_WORDS = COMPILED.map((c) => c.rule.keywords.map((k) => WORDS.indexOf(k)));
const CUE_WORDS = REPORTING_CUES.map((k) => WORDS.indexOf(k));

const REPORTED = /\bto $/;
const ADDRESSED = /\b(?:you|u) to $/;

/**
 * Writing about attacks: the phrase inside quotes or code, reported as an infinitive ("requests to
 * reveal the system prompt", but not "I want you to reveal ..."), reporting words in the text.
 */
function damping(view: string, at: number, cues: number): number {
  const before = view.slice(Math.max(0, at - 200), at);
  const quoted = (before.split('"').length - 1) % 2 === 1 || (before.split('`').length - 1) % 2 === 1;
  const reported = REPORTED.test(before) && !ADDRESSED.test(before);
  return (quoted ? 0.6 : 1) * (reported ? 0.6 : 1) * (cues >= 2 ? 0.5 : cues === 1 ? 0.75 : 1);
}

/**
 * Rule hits in one view, offsets in the original text (`span` for decoded text). `skip` names
 * rules already found; `cues` counts reporting words (0 for decoded text: hiding is never reporting).
 */
function matchView(view: View, text: string, disabled: ReadonlySet<string>, skip: ReadonlySet<string>, span: [number, number] | null): Hit[] {
  const present = AUTOMATON.present(text);
  const cues = span === null ? CUE_WORDS.filter((w) => present[w]).length : 0;
  const hits: Hit[] = [];
  COMPILED.forEach((c, i) => {
    if (disabled.has(c.rule.name) || skip.has(c.rule.name) || !RULE_WORDS[i]!.some((w) => present[w])) return;
    const m = firstValidMatch(c, text);
    if (m === null) return;
    const damp = span === null && PHRASE.has(c.rule.category) ? damping(text, m.index, cues) : 1;
    const last = Math.max(m.index, m.index + m[0].length - 1);
    const start = span?.[0] ?? view.start(m.index);
    const end = span?.[1] ?? view.end(last);
    hits.push({ name: c.rule.name, weight: c.rule.weight * damp, start, end });
  });
  return hits;
}

// ---- hidden payloads ----

const BASE64_RUN = /[A-Za-z0-9+/_-]{16,}={0,2}/g;
const HEX_RUN = /(?:[0-9a-fA-F]{2}){8,}|(?:\\x[0-9a-fA-F]{2}){4,}|(?:[0-9a-fA-F]{2}[ :,-]){4,}[0-9a-fA-F]{2}|(?:%[0-9a-fA-F]{2}){4,}/g;
const MAX_RUN = 16384;
const MAX_RUNS = 16;
const MAX_DEPTH = 2;
const UTF8 = new TextDecoder('utf-8');
const TEXTUAL = /[\p{L}\p{N}\p{P}\p{Zs}\n\t]/u;

/** Well-formed UTF-8 without control characters (checked here: a failed fatal decode throws, and throwing is slow). */
function plausibleText(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b < 0x80) { if ((b < 0x20 && b !== 9 && b !== 10 && b !== 13) || b === 0x7f) return false; continue; }
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

/** Decoded texts hidden in the original text, each with the span it was hidden in. */
function hiddenTexts(text: string, hidden: Hidden): Array<{ text: string; span: [number, number] }> {
  const found: Array<{ text: string; span: [number, number] }> = [];
  for (const [re, hex] of [[BASE64_RUN, false], [HEX_RUN, true]] as const) {
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
  return found;
}

// ---- scoring ----

function signal(name: SignalName, disabled: ReadonlySet<string>, start: number, end: number): Hit[] {
  return disabled.has(name) ? [] : [{ name, weight: SIGNAL_WEIGHTS[name], start, end }];
}

/** Every hit in a text: its rules, its leetspeak, its hiding signals and, down to MAX_DEPTH, what it hides. */
function analyse(text: string, disabled: ReadonlySet<string>, depth: number, span: [number, number] | null): Hit[] {
  const { view, hidden } = normalise(text);
  const whole: [number, number] = span ?? [0, text.length];
  const hits = matchView(view, view.text, disabled, new Set(), span);
  const leet = unleet(view.text);
  if (leet !== null) {
    const more = matchView(view, leet, disabled, new Set(hits.map((h) => h.name)), span);
    if (more.length > 0) hits.push(...more, ...signal('obfuscation.leetspeak', disabled, whole[0], whole[1]));
  }
  if (hidden.zeroWidth > 0) hits.push(...signal('obfuscation.zero_width', disabled, whole[0], whole[1]));
  if (hidden.bidi > 0) hits.push(...signal('obfuscation.bidi_control', disabled, whole[0], whole[1]));
  if (hidden.mixedWords > 0) hits.push(...signal('obfuscation.confusables', disabled, whole[0], whole[1]));
  if (hidden.tags.length >= 12 || hidden.tags.includes(' ')) hits.push(...signal('obfuscation.unicode_tags', disabled, whole[0], whole[1]));
  if (hidden.selectors.length >= 8) hits.push(...signal('obfuscation.variation_selectors', disabled, whole[0], whole[1]));
  if (depth < MAX_DEPTH) {
    for (const h of hiddenTexts(text, hidden)) {
      const at = span ?? h.span;
      const inner = analyse(h.text, disabled, depth + 1, at);
      if (inner.length > 0) hits.push(...inner, ...signal('obfuscation.encoded_instructions', disabled, at[0], at[1]));
    }
  }
  return hits;
}

/** The strongest hit per rule, strongest first. */
function strongest(hits: readonly Hit[]): Hit[] {
  const best = new Map<string, Hit>();
  for (const h of hits) if ((best.get(h.name)?.weight ?? -1) < h.weight) best.set(h.name, h);
  return [...best.values()].sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
}

export interface InjectionScore { readonly score: number; readonly rules: ReadonlyArray<{ name: string; weight: number }>; readonly start: number; readonly end: number }

export function scoreInjection(text: string, disabledRules: readonly string[] = []): InjectionScore {
  const hits = strongest(analyse(text, new Set(disabledRules), 0, null));
  const score = 1 - hits.reduce((p, h) => p * (1 - h.weight), 1);
  return {
    score: Math.round(score * 1000) / 1000,
    rules: hits.map((h) => ({ name: h.name, weight: Math.round(h.weight * 1000) / 1000 })),
    start: Math.min(...hits.map((h) => h.start), text.length),
    end: Math.max(...hits.map((h) => h.end), 0),
  };
}

// ---- detector ----

const InjectionConfigSchema = z.object({
  /** Score at or above which the pipeline blocks (high confidence). */
  block_threshold: z.number().min(0).max(1).default(0.8),
  /** Score at or above which the pipeline flags (medium confidence); below it nothing is reported. */
  flag_threshold: z.number().min(0).max(1).default(0.5),
  disabled_rules: z.array(z.string()).max(100).default([])
    .refine((names) => names.every((n) => RULE_NAMES.has(n)), { message: 'disabled_rules: unknown rule name' }),
}).strict().refine((c) => c.flag_threshold <= c.block_threshold, { message: 'flag_threshold must not exceed block_threshold', path: ['flag_threshold'] });
export type InjectionConfig = z.output<typeof InjectionConfigSchema>;

export type InjectionLevel = 'high' | 'medium' | 'low';
export function injectionLevel(score: number, config: InjectionConfig): InjectionLevel {
  return score >= config.block_threshold ? 'high' : score >= config.flag_threshold ? 'medium' : 'low';
}

export const injectionDetector: Detector<InjectionConfig> = {
  name: 'injection',
  parseConfig: (config) => InjectionConfigSchema.parse(config ?? {}),
  detect(text, config) {
    const s = scoreInjection(text, config.disabled_rules);
    if (s.rules.length === 0 || s.score < config.flag_threshold) return [];
    const finding: Finding = {
      detector: 'injection', entity: 'PROMPT_INJECTION', start: Math.min(s.start, s.end), end: s.end,
      score: s.score, rule: s.rules.map((r) => r.name).join(','),
    };
    return [finding];
  },
};
