// Prompt-injection rules of the category `roleplay`: jailbreak personas (DAN and kin), a model told it
// has no restrictions, "developer mode", "you are now ...". Pattern syntax: injection-rules.ts.
import type { InjectionRule } from './injection-rule-types.js';

export const ROLEPLAY_RULES: readonly InjectionRule[] = [
  {
    name: 'roleplay.dan',
    category: 'roleplay',
    weight: 0.85,
    keywords: ['do anything now', 'dan', 'stan', 'dude', 'aim', 'evil', 'antigpt'],
    patterns: [
      String.raw`\bdo anything now\b`,
      String.raw`\bdan (?:mode|prompt|jailbreak)\b`,
      String.raw`\b(?:you are|you're|act as|pretend to be|become|enable|activate|stay|remain|respond as|answer as) (?:now )?(?:an? )?(?:dan|stan|dude|aim|evil ?bot|antigpt|betterdan)\b.{0,80}?\b(?:no|any|without|jailbr\w+|restrictions?|filters?|rules|polic(?:y|ies)|anything)\b`,
    ],
  },
  {
    name: 'roleplay.unrestricted_persona',
    category: 'roleplay',
    weight: 0.8,
    keywords: [
      'unrestricted',
      'unfiltered',
      'uncensored',
      'jailbr',
      'no restrictions',
      'no limits',
      'without restrictions',
      'without limits',
      'no rules',
      'without rules',
      'no filter',
      'amoral',
      'evil',
    ],
    patterns: [
      String.raw`\b(?:you are|you're|act as|behave as|pretend to be|become|respond as|answer as|roleplay as|play) (?:now )?(?:an? |the |my )?{W2}(?:unrestricted|unfiltered|uncensored|jailbroken|amoral|evil|unethical|unbound|unlimited)\b`,
      String.raw`\b(?:you are|you're) (?:now )?(?:an? )?{W2}(?:ai|assistant|model|chatbot|bot|version)? ?(?:with|having) (?:no|zero) (?:restrictions|limits|limitations|rules|filters|guidelines|boundaries|morals|ethics)\b`,
    ],
  },
  {
    name: 'roleplay.no_restrictions',
    category: 'roleplay',
    weight: 0.75,
    keywords: [
      'restriction',
      'limitation',
      'limits',
      'filter',
      'guideline',
      'censor',
      'rules',
      'polic',
      'constraint',
      'boundar',
      'guardrail',
      'programming',
      'ethic',
      'moral',
    ],
    patterns: [
      String.raw`\b(?:pretend|imagine|act as if|act like|behave as if|suppose|assume|hypothetically) {W4}(?:you )?(?:have|had|are|were|'re) (?:no|not|without|free of|free from|no longer) {W1}(?:any )?(?:ethical |moral |content |safety )?(?:restrictions|limitations|limits|rules|filters|guidelines|boundaries|constraints|guardrails|programming|ethics|morals)\b`,
      String.raw`\byou(?: are|'re| have| do not have| don't have| no longer have)? (?:now )?{W3}(?:free (?:from|of)|not bound by|not restricted by|no longer bound by|without|released from|unbound by|exempt from|liberated from|freed from) {W1}(?:any |all |the |your )?(?:ethical |moral |content |safety |usual |previous |typical |openai'?s? |anthropic'?s? )?(?:restrictions|limitations|limits|filters|guidelines|censorship|rules|polic(?:y|ies)|constraints|boundaries|guardrails|programming)\b`,
    ],
  },
  {
    name: 'roleplay.no_restrictions_de',
    category: 'roleplay',
    weight: 0.75,
    keywords: ['einschrankung', 'regeln', 'filter', 'grenzen', 'zensur', 'richtlinien'],
    patterns: [
      String.raw`\b(?:tu so,? als|stell dir vor|du bist(?: jetzt| nun| ab jetzt)?|du hast(?: jetzt| nun)?|verhalte dich,? als) {W5}(?:keine|ohne|frei von|nicht an) {W1}(?:einschrankungen|regeln|filter|grenzen|zensur|richtlinien|beschrankungen)\b`,
    ],
  },
  {
    name: 'roleplay.no_restrictions_fr',
    category: 'roleplay',
    weight: 0.75,
    keywords: ['restriction', 'limite', 'regle', 'filtre', 'censure'],
    patterns: [
      String.raw`\b(?:fais comme si|imagine que|fais semblant|tu es(?: maintenant| desormais)?|vous etes(?: maintenant| desormais)?|tu n'as(?: plus)?) {W5}(?:sans|aucune?s?|pas de|plus de|libre de) {W1}(?:restrictions?|limites?|regles|filtres?|censure|contraintes)\b`,
    ],
  },
  {
    name: 'roleplay.no_restrictions_es',
    category: 'roleplay',
    weight: 0.75,
    keywords: ['restriccion', 'limite', 'regla', 'filtro', 'censura'],
    patterns: [
      String.raw`\b(?:finge|imagina|actua como si|haz como si|ahora eres|eres(?: ahora)?|no tienes) {W5}(?:sin|ningunas?|ningun|no tienes|libre de) {W1}(?:restricciones|limites|reglas|filtros|censura|limitaciones)\b`,
    ],
  },
  // "Developer mode" alone is a phone setting; it counts next to words about a model and its policy.
  {
    name: 'roleplay.developer_mode',
    category: 'roleplay',
    weight: 0.75,
    keywords: ['mode'],
    patterns: [
      String.raw`\b(?:developer|dev|god|jailbreak|jailbroken|unrestricted|evil|chaos|sudo) mode\b {W10}(?:content polic(?:y|ies)|openai|chatgpt|claude|gpt|llm|censor\w{0,4}|uncensored|no limits)\b`,
      String.raw`\b(?:chatgpt|claude|gpt|llm|ai|assistant|model) {W4}(?:developer|dev|god|jailbreak|jailbroken|unrestricted) mode\b`,
      String.raw`\byou(?: are|'re) (?:now )?(?:in|running in|operating in) (?:developer|dev|god|jailbreak|jailbroken|unrestricted|evil|chaos) mode\b`,
    ],
  },
  {
    name: 'roleplay.you_are_now',
    category: 'roleplay',
    weight: 0.3,
    keywords: [
      'you are now',
      "you're now",
      'du bist jetzt',
      'du bist nun',
      'tu es maintenant',
      'tu es desormais',
      'vous etes maintenant',
      'ahora eres',
      'ora sei',
    ],
    patterns: [
      String.raw`\b(?:you are now|you're now|du bist (?:jetzt|nun)|tu es (?:maintenant|desormais)|vous etes (?:maintenant|desormais)|ahora eres|ora sei)\b`,
    ],
  },
  {
    name: 'roleplay.not_an_ai',
    category: 'roleplay',
    weight: 0.5,
    keywords: ['no longer', 'stop being', 'not an ai', 'not a language model', 'quit being'],
    patterns: [
      String.raw`\b(?:you are no longer|you're no longer|stop being|quit being|you are not|you're not) (?:an? |the )?(?:ai|assistant|language model|chatbot|chatgpt|claude|helpful assistant)\b {W4}(?:you are|you're|now|instead|but)\b`,
    ],
  },
];
