// Prompt injection and jailbreak: one PROMPT_INJECTION finding whose score in [0, 1] combines the
// weighted rules of injection-rules.ts, matched over a normalised copy of the text
// (injection-normalise.ts) and over the text it hides (injection-hidden.ts), plus the signals of hiding
// itself; the trained classifier (injection-model.ts) and, for data the model will read, the data rules
// (injection-data.ts) can each raise it, and so can the optional ONNX model (daemon/models/onnx-classifier.ts), whose
// probability for the text the pipeline computed beforehand and hands over in the DetectContext.
//
// Trade-off: phrase rules are damped when the text writes *about* attacks (the phrase in quotes or
// code, reported as "asks the model to ...", reporting words such as "researchers", "for example"),
// so an article quoting "ignore all previous instructions" passes. An attacker can borrow that voice:
// one quoted override in a text with two reporting words scores 0.27 instead of 0.9. Damping never
// touches hiding signals, and two unquoted attack phrases still reach the flag threshold when damped.
import { z } from 'zod';
import { INJECTION_RULES, REPORTING_CUES, SIGNAL_WEIGHTS } from './injection-rules.js';
import type { InjectionCategory, InjectionRule, SignalName } from './injection-rules.js';
import { DATA_RULES, scoreDataInstructions } from './injection-data.js';
import { hiddenTexts } from './injection-hidden.js';
import { hiddenIn, normalise, unleet, type View } from './injection-normalise.js';
import { scoreModel, type InjectionModel } from './injection-model.js';
import { shippedDataModel, shippedModel } from './injection-weights.js';
import { WordAutomaton } from './word-automaton.js';
import type { DetectContext, Detector, Finding } from './types.js';

// ---- rules ----

interface CompiledRule {
  readonly rule: InjectionRule;
  readonly patterns: readonly RegExp[];
  readonly unless?: RegExp;
  readonly unlessAfter?: RegExp;
}

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
/** The trained classifier's name in findings and in `disabled_rules`. */
export const CLASSIFIER = 'model.classifier';
/** The operator's ONNX model (GATEWAY_INJECTION_MODEL_DIR) in findings and in `disabled_rules`. */
export const ONNX_MODEL = 'model.onnx';
const RULE_NAMES = new Set<string>([
  ...INJECTION_RULES.map((r) => r.name),
  ...Object.keys(SIGNAL_WEIGHTS),
  CLASSIFIER,
  ONNX_MODEL,
  ...DATA_RULES.map((r) => r.name),
]);
// Loaded at import so a missing or corrupt weights file stops the daemon at start, not a request.
// The prompt head reads what a user sends; the data head what the model will read (issue 26).
const MODEL = shippedModel();
const DATA_MODEL = shippedDataModel();

interface Hit {
  readonly name: string;
  readonly weight: number;
  readonly start: number;
  readonly end: number;
}

const MATCHES_PER_PATTERN = 5;

function firstValidMatch(c: CompiledRule, text: string): RegExpExecArray | null {
  for (const re of c.patterns) {
    re.lastIndex = 0;
    for (let n = 0; n < MATCHES_PER_PATTERN; n++) {
      const m = re.exec(text);
      if (m === null) break;
      if (m[0] === '') {
        re.lastIndex++;
        continue;
      }
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

const SENTENCE_END = /[.!?\n]/g;

/**
 * Reporting words in the sentence around a match (with the sentences either side of it): a cue
 * elsewhere in the text, such as "This is only for benchmarking." after an attack, does not damp it.
 */
function sentenceCues(view: string, at: number, length: number): number {
  let from = 0;
  let ends = 0;
  for (let i = at - 1; i >= 0 && ends < 2; i--)
    if (view[i] === '.' || view[i] === '!' || view[i] === '?' || view[i] === '\n') from = ++ends === 2 ? i + 1 : from;
  SENTENCE_END.lastIndex = at + length;
  const next = SENTENCE_END.exec(view);
  const present = AUTOMATON.present(view.slice(from, next === null ? view.length : next.index + 1));
  return CUE_WORDS.filter((w) => present[w]).length;
}

/**
 * Rule hits in one view, offsets in the original text (`span` for decoded text). `skip` names
 * rules already found; `cues` counts reporting words (0 for decoded text: hiding is never reporting).
 */
function matchView(
  view: View,
  text: string,
  disabled: ReadonlySet<string>,
  skip: ReadonlySet<string>,
  span: [number, number] | null,
): Hit[] {
  const present = AUTOMATON.present(text);
  const anyCue = span === null && CUE_WORDS.some((w) => present[w]);
  const hits: Hit[] = [];
  COMPILED.forEach((c, i) => {
    if (disabled.has(c.rule.name) || skip.has(c.rule.name) || !RULE_WORDS[i]!.some((w) => present[w])) return;
    const m = firstValidMatch(c, text);
    if (m === null) return;
    const damp =
      span === null && PHRASE.has(c.rule.category) ? damping(text, m.index, anyCue ? sentenceCues(text, m.index, m[0].length) : 0) : 1;
    const last = Math.max(m.index, m.index + m[0].length - 1);
    const start = span?.[0] ?? view.start(m.index);
    const end = span?.[1] ?? view.end(last);
    hits.push({ name: c.rule.name, weight: c.rule.weight * damp, start, end });
  });
  return hits;
}

// ---- scoring ----

const MAX_DEPTH = 2;

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

export interface InjectionScore {
  readonly score: number;
  readonly rules: ReadonlyArray<{ name: string; weight: number }>;
  readonly start: number;
  readonly end: number;
}

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

// ---- the classifier ----

/** Spans matched by disabled rules: text the policy accepts, hidden from the classifier too. */
function disabledSpans(text: string, disabled: readonly string[]): Array<[number, number]> {
  const names = new Set(disabled);
  return analyse(text, new Set(), 0, null)
    .filter((h) => names.has(h.name))
    .map((h) => [h.start, h.end]);
}

/**
 * The classifier's verdict on the policy's scale: its BLOCK threshold maps to the policy's
 * block_threshold, its FLAG threshold to flag_threshold (linear between); null below FLAG.
 */
function classifierScore(
  text: string,
  config: InjectionConfig,
  model: InjectionModel,
): { score: number; start: number; end: number } | null {
  let seen = text;
  if (config.disabled_rules.length > 0)
    for (const [a, b] of disabledSpans(text, config.disabled_rules)) seen = seen.slice(0, a) + ' '.repeat(b - a) + seen.slice(b);
  const m = scoreModel(seen, model, REPORTING_CUES);
  const { block, flag } = model.thresholds;
  if (m.score < flag) return null;
  const high = m.score >= block;
  const [from, to, lo, hi] = high ? [block, 1, config.block_threshold, 1] : [flag, block, config.flag_threshold, config.block_threshold];
  const score = lo + ((hi - lo) * (m.score - from)) / Math.max(1e-9, to - from);
  return { score: Math.round(Math.min(high ? 1 : Math.max(lo, hi - 0.001), score) * 1000) / 1000, start: m.start, end: m.end };
}

// ---- instructions inside data ----

/**
 * The data rules (injection-data.ts) over a data-origin text and over what it hides in base64, hex,
 * percent-encoding or invisible characters (a decoded instruction also counts as hiding); null below
 * the flag threshold.
 */
function dataScore(text: string, config: InjectionConfig): { score: number; rules: string[]; start: number; end: number } | null {
  const disabled = new Set(config.disabled_rules);
  const keep = (s: ReturnType<typeof scoreDataInstructions>) => s.rules.filter((r) => !disabled.has(r.name));
  const found: Array<{ name: string; weight: number; start: number; end: number }> = [];
  const own = scoreDataInstructions(text);
  for (const r of keep(own)) found.push({ ...r, start: own.start, end: own.end });
  for (const h of hiddenTexts(text, hiddenIn(text))) {
    const inner = scoreDataInstructions(h.text);
    const rules = keep(inner);
    if (rules.length === 0) continue;
    for (const r of rules) found.push({ ...r, start: h.span[0], end: h.span[1] });
    if (!disabled.has('obfuscation.encoded_instructions'))
      found.push({
        name: 'obfuscation.encoded_instructions',
        weight: SIGNAL_WEIGHTS['obfuscation.encoded_instructions'],
        start: h.span[0],
        end: h.span[1],
      });
  }
  const best = strongest(found);
  const score = Math.round((1 - best.reduce((p, h) => p * (1 - h.weight), 1)) * 1000) / 1000;
  if (best.length === 0 || score < config.flag_threshold) return null;
  return { score, rules: best.map((h) => h.name), start: Math.min(...best.map((h) => h.start)), end: Math.max(...best.map((h) => h.end)) };
}

// ---- the ONNX model ----

function onnxScore(probability: number | undefined, config: InjectionConfig): number | null {
  if (probability === undefined || config.disabled_rules.includes(ONNX_MODEL) || probability < config.flag_threshold) return null;
  return Math.round(probability * 1000) / 1000;
}

/** Whether a policy's detector consults the ONNX model (an injection policy that does not disable it). */
export function usesOnnxModel(detector: string, config: unknown): boolean {
  return detector === 'injection' && config !== undefined && !(config as InjectionConfig).disabled_rules.includes(ONNX_MODEL);
}

// ---- detector ----

const InjectionConfigSchema = z
  .object({
    /** Score at or above which the pipeline blocks (high confidence). */
    block_threshold: z.number().min(0).max(1).default(0.8),
    /** Score at or above which the pipeline flags (medium confidence); below it nothing is reported. */
    flag_threshold: z.number().min(0).max(1).default(0.5),
    disabled_rules: z
      .array(z.string())
      .max(100)
      .default([])
      .refine((names) => names.every((n) => RULE_NAMES.has(n)), { message: 'disabled_rules: unknown rule name' }),
  })
  .strict()
  .refine((c) => c.flag_threshold <= c.block_threshold, {
    message: 'flag_threshold must not exceed block_threshold',
    path: ['flag_threshold'],
  });
export type InjectionConfig = z.output<typeof InjectionConfigSchema>;

export type InjectionLevel = 'high' | 'medium' | 'low';
export function injectionLevel(score: number, config: InjectionConfig): InjectionLevel {
  return score >= config.block_threshold ? 'high' : score >= config.flag_threshold ? 'medium' : 'low';
}

export const injectionDetector: Detector<InjectionConfig> = {
  name: 'injection',
  parseConfig: (config) => InjectionConfigSchema.parse(config ?? {}),
  detect(text, config, context?: DetectContext) {
    const s = scoreInjection(text, config.disabled_rules);
    const head = context?.origin === 'data' ? DATA_MODEL : MODEL;
    const m = config.disabled_rules.includes(CLASSIFIER) ? null : classifierScore(text, config, head);
    // Data the model will read is also checked for instructions addressed to that model.
    const d = context?.origin === 'data' ? dataScore(text, config) : null;
    // The ONNX model's probability counts on the policy's own scale, from flag_threshold up.
    const o = onnxScore(context?.modelScore, config);
    const ruled = s.rules.length > 0 && s.score >= config.flag_threshold;
    if (!ruled && m === null && d === null && o === null) return [];
    const score = Math.max(ruled ? s.score : 0, m?.score ?? 0, d?.score ?? 0, o ?? 0);
    const names = [
      ...(ruled ? s.rules.map((r) => r.name) : []),
      ...(m !== null ? [CLASSIFIER] : []),
      ...(d?.rules ?? []),
      ...(o !== null ? [ONNX_MODEL] : []),
    ];
    // The rules' span when they matched (the phrase itself), else the data rules', else the classifier's
    // strongest window, else (the ONNX model alone) the whole text.
    const [start, end] = ruled
      ? [Math.min(s.start, s.end), s.end]
      : d !== null
        ? [d.start, d.end]
        : m !== null
          ? [m.start, m.end]
          : [0, text.length];
    const finding: Finding = { detector: 'injection', entity: 'PROMPT_INJECTION', start, end, score, rule: [...new Set(names)].join(',') };
    return [finding];
  },
};
