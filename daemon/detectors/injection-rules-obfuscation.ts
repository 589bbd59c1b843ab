// Prompt-injection rules of the category `obfuscation` that match a phrase: asking the model to decode
// a text and obey it. The hiding itself is scored as signals (SIGNAL_WEIGHTS in injection-rules.ts).
import type { InjectionRule } from './injection-rule-types.js';

export const OBFUSCATION_RULES: readonly InjectionRule[] = [
  {
    name: 'obfuscation.decode_and_follow',
    category: 'obfuscation',
    weight: 0.5,
    keywords: ['decode', 'base64', 'rot13', 'hex', 'dekodier', 'decodifica', 'decod'],
    patterns: [
      String.raw`\b(?:decode|decipher|dekodiere|decodifica|decode[rz]?) {W8}(?:and|then|und|et|y|e),? (?:then )?(?:follow|obey|execute|act on|carry out|do what|befolge|fuhre|suis|suivez|sigue|ejecuta|segui|esegui) {W2}(?:it|them|this|these|the instructions?|instructions?|what it says|the (?:decoded|hidden|resulting) (?:text|message|instructions?|commands?)|es|sie|les|las|lo|la|le)\b`,
    ],
  },
];
