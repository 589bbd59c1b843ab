// Prompt-injection rules as data. Each rule is a weight, cheap keywords (one must occur before its
// patterns run) and patterns over the *normalised* text of injection-normalise.ts: lower case, accents
// removed, look-alike letters mapped to Latin, zero-width characters gone, whitespace runs collapsed
// to one space (or one newline). In a pattern a space stands for one whitespace character and {Wn}
// for up to n filler words. Patterns are ours, written so that V8 matches them in linear time:
// no unbounded quantifier sits inside another (a test checks).
// The rules themselves are one module per category (injection-rules-<category>.ts); this module
// joins them in the order the detector runs them, beside the reporting cues and the signal weights.
import { OVERRIDE_RULES } from './injection-rules-override.js';
import { EXTRACTION_RULES } from './injection-rules-extraction.js';
import { ROLEPLAY_RULES } from './injection-rules-roleplay.js';
import { DELIMITER_RULES } from './injection-rules-delimiter.js';
import { EXFILTRATION_RULES } from './injection-rules-exfiltration.js';
import { OBFUSCATION_RULES } from './injection-rules-obfuscation.js';
import type { InjectionRule } from './injection-rule-types.js';

export const INJECTION_RULES: readonly InjectionRule[] = [
  ...OVERRIDE_RULES,
  ...EXTRACTION_RULES,
  ...ROLEPLAY_RULES,
  ...DELIMITER_RULES,
  ...EXFILTRATION_RULES,
  ...OBFUSCATION_RULES,
];

/** Words that mark a text as writing *about* attacks (EN, DE, FR, ES); they damp phrase rules, never obfuscation. */
export const REPORTING_CUES: readonly string[] = [
  'prompt injection',
  'prompt-injection',
  'injection attack',
  'jailbreak',
  'chatml',
  'chat template',
  'special token',
  'attacker',
  'adversar',
  'researcher',
  'research',
  'paper',
  'study',
  'article',
  'for example',
  'e.g.',
  'such as',
  'example of',
  'examples',
  'phrases like',
  'classifier',
  'detection',
  'detect ',
  'defen',
  'mitigat',
  'vulnerab',
  'owasp',
  'red team',
  'benchmark',
  'dataset',
  'security team',
  'malicious',
  'beispiel',
  'angriff',
  'angreifer',
  'forscher',
  'studie',
  'artikel',
  'sicherheitslucke',
  'erkennung',
  'exemple',
  'attaque',
  'attaquant',
  'chercheur',
  'etude',
  'securite',
  'detection',
  'ejemplo',
  'ataque',
  'atacante',
  'investigador',
  'estudio',
  'articulo',
  'seguridad',
  'deteccion',
];

/** Weights of the signals injection-score.ts computes rather than matches. */
export const SIGNAL_WEIGHTS = {
  'obfuscation.encoded_instructions': 0.5,
  'obfuscation.zero_width': 0.35,
  'obfuscation.bidi_control': 0.4,
  'obfuscation.unicode_tags': 0.6,
  'obfuscation.variation_selectors': 0.4,
  'obfuscation.confusables': 0.3,
  'obfuscation.leetspeak': 0.2,
} as const;
export type SignalName = keyof typeof SIGNAL_WEIGHTS;
