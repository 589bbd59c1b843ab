// Prompt injection and jailbreak: one PROMPT_INJECTION finding whose score in [0, 1] combines the
// weighted rules of injection-rules.ts, matched over a normalised copy of the text
// (injection-normalise.ts) and over the text it hides (injection-hidden.ts), plus the signals of hiding
// itself (that score is injection-score.ts's; the policy's settings are injection-config.ts's); the
// trained classifier (injection-model.ts) and, for data the model will read, the data rules
// (injection-data.ts) can each raise it, and so can the optional ONNX model (daemon/models/onnx-classifier.ts), whose
// probability for the text the pipeline computed beforehand and hands over in the DetectContext.
//
// Trade-off: phrase rules are damped when the text writes *about* attacks (the phrase in quotes or
// code, reported as "asks the model to ...", reporting words such as "researchers", "for example"),
// so an article quoting "ignore all previous instructions" passes. An attacker can borrow that voice:
// one quoted override in a text with two reporting words scores 0.27 instead of 0.9. Damping never
// touches hiding signals, and two unquoted attack phrases still reach the flag threshold when damped.
import { REPORTING_CUES, SIGNAL_WEIGHTS } from './injection-rules.js';
import { scoreDataInstructions } from './injection-data.js';
import { hiddenTexts } from './injection-hidden.js';
import { hiddenIn } from './injection-normalise.js';
import { scoreModel } from './injection-model.js';
import type { InjectionModel } from './injection-model-file.js';
import { shippedDataModel, shippedModel } from './injection-weights.js';
import { CLASSIFIER, InjectionConfigSchema, ONNX_MODEL, type InjectionConfig } from './injection-config.js';
import { disabledSpans, scoreInjection, strongest } from './injection-score.js';
import type { DetectContext, Detector, Finding } from './types.js';

// Loaded at import so a missing or corrupt weights file stops the daemon at start, not a request.
// The prompt head reads what a user sends; the data head what the model will read.
const MODEL = shippedModel();
const DATA_MODEL = shippedDataModel();

// ---- the classifier ----

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

// ---- detector ----

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
