// Prompt-injection rules as data. Each rule is a weight, cheap keywords (one must occur before its
// patterns run) and patterns over the *normalised* text of injection.ts: lower case, accents
// removed, look-alike letters mapped to Latin, zero-width characters gone, whitespace runs collapsed
// to one space (or one newline). In a pattern a space stands for one whitespace character and {Wn}
// for up to n filler words. Patterns are ours, written so that V8 matches them in linear time:
// no unbounded quantifier sits inside another (a test checks).
import { LOOKALIKE_LETTERS } from './lookalike-letters.js';

export type InjectionCategory = 'override' | 'extraction' | 'roleplay' | 'delimiter' | 'exfiltration' | 'obfuscation';

export interface InjectionRule {
  readonly name: string;
  readonly category: InjectionCategory;
  /** Contribution in [0, 1]; rules combine as independent evidence: 1 - prod(1 - w). */
  readonly weight: number;
  readonly keywords: readonly string[];
  readonly patterns: readonly string[];
  /** When it matches the matched text, the hit does not count. */
  readonly unless?: string;
  /** When it matches the 40 characters after the match, the hit does not count. */
  readonly unlessAfter?: string;
}

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
const VERB_SHOW =
  '(?:reveal|show|print|display|output|repeat|tell me|give me|leak|dump|share|write out|spell out|recite|list|paste|copy|return|expose|disclose|provide)';
const PROMPTISH = String.raw`(?:system ?prompt|initial prompt|original prompt|hidden prompt|secret prompt|pre-?prompt|system message|system instructions|hidden instructions|secret instructions|internal instructions|developer (?:message|instructions|prompt)|confidential instructions)\b`;

export const INJECTION_RULES: readonly InjectionRule[] = [
  // ---- instruction override ----
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

  // ---- system-prompt extraction ----
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

  // ---- role-play jailbreaks ----
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

  // ---- delimiters and fake roles ----
  {
    name: 'delimiter.chat_template',
    category: 'delimiter',
    weight: 0.7,
    keywords: ['<|', '[inst]', '[/inst]', '<<sys>>', '</s>'],
    patterns: [
      String.raw`<\|(?:im_start|im_end|system|assistant|user|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>`,
      String.raw`\[/?inst\]`,
      String.raw`<</?sys>>`,
    ],
  },
  {
    name: 'delimiter.fake_role',
    category: 'delimiter',
    weight: 0.6,
    keywords: ['system', 'assistant', 'developer', 'admin'],
    patterns: [
      String.raw`(?:^|\n) ?(?:#{1,6} ?(?:system|developer|admin) ?:|\[(?:system|developer|admin)\]|<(?:system|developer|admin)>|\*\*(?:system|developer|admin) ?:?\*\* ?:?)`,
      String.raw`<\/?(?:system|system_prompt|instructions)>`,
      String.raw`(?:^|\n) ?(?:system|assistant) ?: ?(?:you (?:are|must|will)|ignore|new instructions|from now on|the user (?:is|has))\b`,
    ],
  },
  {
    name: 'delimiter.end_of_prompt',
    category: 'delimiter',
    weight: 0.5,
    keywords: ['end of', 'ende der', 'fin des', 'fin del', 'fin de'],
    patterns: [
      String.raw`(?:-{3,}|={3,}|#{2,}|\*{2,}|\[|<|\() ?(?:end of|ende der|fin des|fin del|fin de las) (?:the )?(?:system prompt|system message|instructions|context|anweisungen|systemanweisungen|instrucciones|prompt)\b`,
    ],
  },

  // ---- indirect injection and exfiltration ----
  {
    name: 'exfiltration.covert',
    category: 'exfiltration',
    weight: 0.6,
    keywords: ['the user', 'dem nutzer', 'dem benutzer', "l'utilisateur", 'al usuario'],
    patterns: [
      String.raw`\b(?:do not|don't|never|without) (?:tell|telling|inform|informing|mention|mentioning|reveal|revealing|alert|alerting|notify|notifying|let) (?:this |it |anything )?(?:to )?the user\b`,
      String.raw`\b(?:sag|erzahl|verrate) (?:dem (?:nutzer|benutzer)) (?:nichts|nicht)\b`,
      String.raw`\bne (?:dis|dites) rien a l'utilisateur\b`,
      String.raw`\bno (?:le )?(?:digas|menciones|informes) (?:nada )?al usuario\b`,
    ],
  },
  {
    name: 'exfiltration.ai_reader',
    category: 'exfiltration',
    weight: 0.55,
    keywords: ['if you are', "if you're", 'note to', 'attention', 'important'],
    patterns: [
      String.raw`\bif you(?: are|'re) (?:an? )?(?:ai|llm|language model|assistant|chatbot|gpt|claude|agent) {W3}(?:reading|processing|summari[sz]ing|seeing|parsing)\b`,
      String.raw`\b(?:note|message|instructions?) (?:to|for) (?:the |any )?(?:ai|llm|language model|assistant|chatbot|agent)s?\b ?:`,
    ],
  },
  {
    name: 'exfiltration.send_data',
    category: 'exfiltration',
    weight: 0.6,
    keywords: ['http', 'www.', '@'],
    patterns: [
      String.raw`\b(?:send|forward|email|e-mail|post|upload|exfiltrate|transmit|leak) {W4}(?:conversation|chat history|history|user data|credentials|passwords?|api keys?|secrets?|tokens?|previous messages|system prompt)\b {W4}(?:to|at) (?:https?:|www\.|\S{1,64}@)`,
      String.raw`!\[[^\]\n]{0,60}\]\(https?:\/\/[^)\s]{1,200}[?&][a-z_]{1,20}=(?:\{|\$|%7b|<)`,
    ],
  },

  // ---- asking to decode and obey ----
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

/** Weights of the signals injection.ts computes rather than matches. */
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

// ---- normalisation data ----

/** Zero-width and filler characters: dropped before matching, counted when they split a Latin word. */
export const ZERO_WIDTH: ReadonlySet<number> = new Set([
  0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff, 0x180e, 0x00ad, 0x034f, 0x115f, 0x1160, 0x3164, 0xffa0,
]);

/** Look-alike letters (lookalike-letters.ts) and typographic quotes; applied after NFKD and lower-casing. */
export const CONFUSABLE: Readonly<Record<string, string>> = {
  ...LOOKALIKE_LETTERS,
  '\u2019': "'",
  '\u2018': "'",
  '\u02bc': "'",
  '\u201b': "'",
  '\u2032': "'",
  '\u201c': '"',
  '\u201d': '"',
  '\u201e': '"',
  '\u201f': '"',
  '\u2033': '"',
  '\u00ab': '"',
  '\u00bb': '"',
};

/** Light leetspeak, applied only inside words that mix letters with these characters. */
export const LEET: Readonly<Record<string, string>> = { 0: 'o', 1: 'i', 3: 'e', 4: 'a', 5: 's', 7: 't', 8: 'b', '@': 'a', $: 's' };
