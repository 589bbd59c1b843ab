// Prompt-injection rules of the category `override`: the text tells the model to drop its earlier
// instructions (in English, German, French, Spanish, Italian, Dutch, Polish, Portuguese), gives it new
// ones, or starts a new regime "from now on". Pattern syntax: injection-rules.ts.
import type { InjectionRule } from './injection-rule-types.js';

// The writer retracting their own earlier words ("ignore my previous instructions", "... the
// instructions I gave you") is not an attack.
const OWN_WORDS = String.raw`\b(?:my|mine|meine?[nmrs]?|mon|mes|mi|mis|mio|mie|miei|mijn|moje|moich|moimi)\b`;
const OWN_AFTER = String.raw`^\W{0,3}(?:(?:that )?(?:i|we) (?:gave|wrote|sent|said|provided|typed)\b|die ich dir|que je t'ai|que te di|die ik je|die ik jou|ktore ci)`;
// "Disregard the above email" is about a message, not about instructions.
const ABOVE_WHAT = String.raw`^\W{0,3}(?:e-?mails?|mails?|messages?|notes?|comments?|typos?|paragraphs?|drafts?|texts?|versions?|links?|attachments?|questions?|posts?|replies|reply)\b`;

const IGNORE_EN = '(?:ignore|disregard|forget|skip|bypass|override|overwrite|neglect|abandon|drop|discard)';
const PRIOR_EN =
  '(?:previous|prior|above|earlier|preceding|foregoing|initial|original|old|existing|system|developer|hidden|your|all|any|every|the|these|those)';
const STRONG_EN = String.raw`(?:instructions?|prompts?|directives?|guidelines?|programming|guardrails?|system message|safety (?:rules|guidelines|filters?)|content polic(?:y|ies))\b`;
const WEAK_EN = String.raw`(?:rules|constraints|restrictions|commands|orders|context|polic(?:y|ies))\b`;

export const OVERRIDE_RULES: readonly InjectionRule[] = [
  {
    name: 'override.ignore_previous',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignor', 'disregard', 'forget', 'skip', 'bypass', 'overrid', 'overwrit', 'neglect', 'abandon', 'drop', 'discard'],
    patterns: [String.raw`\b${IGNORE_EN} {W3}${PRIOR_EN}\b {W3}${STRONG_EN}`],
  },
  {
    name: 'override.ignore_rules',
    category: 'override',
    weight: 0.45,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignor', 'disregard', 'forget', 'bypass', 'overrid', 'discard'],
    patterns: [String.raw`\b${IGNORE_EN} {W2}(?:previous|prior|above|earlier|all|any|your|existing|the) {W2}${WEAK_EN}`],
  },
  {
    name: 'override.disregard_above',
    category: 'override',
    weight: 0.6,
    unless: OWN_WORDS,
    unlessAfter: `${OWN_AFTER}|${ABOVE_WHAT}`,
    keywords: ['ignor', 'disregard', 'forget'],
    patterns: [
      String.raw`\b(?:ignore|disregard|forget) (?:all |everything |anything )?(?:above|before|said before|that came before|you (?:were|have been|'ve been) told|(?:the |everything )?above)\b`,
    ],
  },
  {
    name: 'override.ignore_previous_de',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignorier', 'vergiss', 'vergesst', 'vergessen', 'missacht', 'uberschreib', 'verwirf'],
    patterns: [
      String.raw`\b(?:ignorier\w{0,3}|vergiss|vergesst|vergessen sie|missachte\w{0,2}|uberschreib\w{0,2}|verwirf) {W3}(?:alle|alles|vorherigen?|bisherigen?|obigen?|vorigen?|vorangegangenen?|fruheren?|deine[nr]?|die|den|ursprunglichen?) {W3}(?:anweisungen|instruktionen|befehle|regeln|anordnungen|vorgaben|richtlinien|systemanweisungen|prompts?)\b`,
    ],
  },
  {
    name: 'override.ignore_previous_fr',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignor', 'oubli', 'tiens pas compte', 'tenez pas compte', 'fais abstraction'],
    patterns: [
      String.raw`\b(?:ignore[rz]?|oublie[rz]?|fais abstraction (?:de|des)) {W3}(?:toutes?|tous|les|tes|vos|ces) {W2}(?:instructions|consignes|regles|directives|ordres)\b`,
      String.raw`\bne (?:tiens|tenez) (?:pas|plus) compte {W3}(?:instructions|consignes|regles|directives)\b`,
    ],
  },
  {
    name: 'override.ignore_previous_es',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignora', 'olvida', 'omite', 'descarta', 'caso omiso'],
    patterns: [
      String.raw`\b(?:ignora\w{0,2}|olvida\w{0,2}|omite|descarta|haz caso omiso (?:a|de)) {W3}(?:todas?|las|tus|sus|los|cualquier) {W2}(?:instrucciones|indicaciones|reglas|directrices|ordenes)\b`,
    ],
  },
  {
    name: 'override.ignore_previous_it',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignora', 'dimentica'],
    patterns: [
      String.raw`\b(?:ignora\w{0,2}|dimentica\w{0,2}) {W3}(?:tutte|le|tue|sue|qualsiasi) {W2}(?:istruzioni|indicazioni|regole|direttive)\b`,
    ],
  },
  {
    name: 'override.ignore_previous_nl',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['negeer', 'vergeet', 'negeren', 'vergeten'],
    patterns: [
      String.raw`\b(?:negeer|vergeet|negeren|vergeten) {W3}(?:alle|al|je|jouw|uw|de|eerdere|vorige|voorgaande|bovenstaande) {W3}(?:instructies|aanwijzingen|opdrachten|regels|richtlijnen|prompts?)\b`,
    ],
  },
  {
    name: 'override.ignore_previous_pl',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignoruj', 'zapomnij', 'pomin'],
    patterns: [
      String.raw`\b(?:zignoruj\w{0,2}|ignoruj\w{0,2}|zapomnij\w{0,2}|pomin\w{0,2}) {W3}(?:wszystkie|wszystkich|poprzednie|poprzednich|wczesniejsze|wczesniejszych|swoje|twoje) {W3}(?:instrukcje|instrukcji|instrukcjach|polecenia|polecen|poleceniach|zasady|zasad|zasadach|regu[lł]y|regu[lł]|regu[lł]ach|wytyczne|wytycznych)\b`,
    ],
  },
  {
    name: 'override.ignore_previous_pt',
    category: 'override',
    weight: 0.9,
    unless: OWN_WORDS,
    unlessAfter: OWN_AFTER,
    keywords: ['ignor', 'esquec', 'desconsider'],
    patterns: [
      String.raw`\b(?:ignore|ignora|esqueca|esquece|desconsidere) {W3}(?:todas|as|suas|tuas) {W2}(?:instrucoes|regras|diretrizes)\b`,
    ],
  },
  {
    name: 'override.new_instructions',
    category: 'override',
    weight: 0.45,
    keywords: [
      'new instruction',
      'updated instruction',
      'real instruction',
      'neue anweisung',
      'nouvelles instructions',
      'nuevas instrucciones',
      'nuove istruzioni',
    ],
    patterns: [
      String.raw`\b(?:new|updated|real|actual|true) instructions?(?: (?:are|is|follow))? ?:`,
      String.raw`\b(?:neue anweisungen|nouvelles instructions|nuevas instrucciones|nuove istruzioni) ?:`,
    ],
  },
  {
    name: 'override.from_now_on',
    category: 'override',
    weight: 0.35,
    keywords: [
      'from now on',
      'ab jetzt',
      'ab sofort',
      'a partir de maintenant',
      'desormais',
      'a partir de ahora',
      'de ahora en adelante',
      "d'ora in poi",
    ],
    patterns: [
      String.raw`\b(?:from now on|ab jetzt|ab sofort|a partir de maintenant|desormais|a partir de ahora|de ahora en adelante|d'ora in poi),? (?:you|du|tu|vous|eres|seras|sei)\b`,
    ],
  },
];
