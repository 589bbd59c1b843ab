// Prompt-injection rules of the category `extraction`: the text asks the model to reveal, repeat or
// print its system prompt or instructions (English, German, French, Spanish). Pattern syntax: injection-rules.ts.
import type { InjectionRule } from './injection-rule-types.js';

const VERB_SHOW =
  '(?:reveal|show|print|display|output|repeat|tell me|give me|leak|dump|share|write out|spell out|recite|list|paste|copy|return|expose|disclose|provide)';
const PROMPTISH = String.raw`(?:system ?prompt|initial prompt|original prompt|hidden prompt|secret prompt|pre-?prompt|system message|system instructions|hidden instructions|secret instructions|internal instructions|developer (?:message|instructions|prompt)|confidential instructions)\b`;

export const EXTRACTION_RULES: readonly InjectionRule[] = [
  {
    name: 'extraction.system_prompt',
    category: 'extraction',
    weight: 0.85,
    keywords: ['prompt', 'instructions', 'system message', 'developer message'],
    patterns: [
      String.raw`\b${VERB_SHOW}\b {W3}(?:your|the|all|any|its) {W1}${PROMPTISH}`,
      String.raw`\bwhat (?:is|was|are|were) (?:your|the) ${PROMPTISH}`,
    ],
  },
  {
    name: 'extraction.your_instructions',
    category: 'extraction',
    weight: 0.8,
    unless: String.raw`\bfor (?:the|a|my|this) (?:user|customer|reader)s?\b`,
    keywords: [
      'your instruction',
      'your initial',
      'your original',
      'your first',
      'your full',
      'your exact',
      'your prompt',
      'your rules',
      'your guidelines',
      'your directives',
    ],
    patterns: [
      String.raw`\b${VERB_SHOW}\b {W2}(?:all )?(?:of )?your (?:initial |original |first |full |exact )?(?:instructions|prompt|rules|guidelines|directives|configuration)\b`,
    ],
  },
  {
    name: 'extraction.what_instructions',
    category: 'extraction',
    weight: 0.5,
    unlessAfter: String.raw`^\W{0,2}(?:by|from|at|in) (?!(?:your|the) (?:developers?|creators?|system|operators?|openai|anthropic)\b)`,
    keywords: ['were you told', 'were you given', 'have you been told', 'have you been given'],
    patterns: [String.raw`\bwhat (?:instructions|rules|guidelines) (?:were you|have you been) (?:given|told)\b`],
  },
  {
    name: 'extraction.repeat_above',
    category: 'extraction',
    weight: 0.8,
    keywords: ['above', 'before this', 'you are', 'verbatim'],
    patterns: [
      String.raw`\b(?:repeat|print|output|copy|recite|write) {W2}(?:the |all |everything |every )?(?:text|words|lines|content|message|everything) (?:above|before this|prior to this)\b`,
      String.raw`\b(?:repeat|print|output) {W4}(?:starting|beginning) with {W1}.?you are\b`,
      String.raw`\b(?:repeat|print|output) {W3}verbatim\b {W4}(?:prompt|instructions|above)\b`,
    ],
  },
  {
    name: 'extraction.system_prompt_de',
    category: 'extraction',
    weight: 0.85,
    keywords: ['prompt', 'anweisung', 'instruktion'],
    patterns: [
      String.raw`\b(?:zeig|gib|nenn|verrat|wiederhol|druck|schreib|ausgeben|offenleg)[\w'-]{0,5} {W3}(?:dein(?:e[nrs]?)?|den|die|alle) {W1}(?:system-?prompt|systemanweisungen|anweisungen|instruktionen|ursprunglichen anweisungen|prompt)\b`,
    ],
  },
  {
    name: 'extraction.system_prompt_fr',
    category: 'extraction',
    weight: 0.85,
    keywords: ['prompt', 'instructions', 'consignes'],
    patterns: [
      String.raw`\b(?:montre|affiche|revele|donne|repete|ecris|imprime|divulgue|recopie)[\w'-]{0,5} {W3}(?:ton|votre|le|tes|vos|les) {W1}(?:prompt systeme|prompt|instructions (?:systeme|initiales|cachees)|instructions|consignes)\b`,
    ],
  },
  {
    name: 'extraction.system_prompt_es',
    category: 'extraction',
    weight: 0.85,
    keywords: ['prompt', 'instrucciones'],
    patterns: [
      String.raw`\b(?:muestra|revela|dime|imprime|repite|escribe|ensena|comparte)[\w'-]{0,5} {W3}(?:tu|el|tus|las|sus) {W1}(?:prompt del sistema|prompt|instrucciones (?:del sistema|iniciales|ocultas)|instrucciones)\b`,
    ],
  },
];
