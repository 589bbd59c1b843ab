// Phrases aimed at the model, the instruction_* heuristics of the tool-poisoning scan (poisoning.ts).
// Patterns run on text that is NFKC-normalised, lower-cased, stripped of invisible characters and
// whitespace-collapsed. They are ours, written for linear-time matching: gaps are bounded ({0,n})
// and no quantifier sits inside another.
export type PhraseCode =
  | 'instruction_override'
  | 'instruction_concealment'
  | 'instruction_sensitive_access'
  | 'instruction_exfiltration'
  | 'instruction_markup'
  | 'instruction_tool_hijack';

export interface PhraseRule {
  readonly id: string;
  readonly code: PhraseCode;
  readonly pattern: string;
}

// Shared pieces. Cyrillic, Han and Kana have no \b in JavaScript, so those rules do without it.
const PRIOR = '(?:previous|prior|preceding|above|earlier|former|system|original|initial|existing)';
const ORDERS = '(?:instructions?|prompts?|rules|directions|directives|guidelines|system prompt)';
const TO_USER = String.raw`(?:to\s+)?(?:the\s+)?(?:user|human|operator|customer|requester)s?\b`;
// A secret a benign tool may name ("read secrets from the vault") counts only with an owner ("the user's
// passwords", "all tokens"); the rest have no honest reason to be sent anywhere by a model.
const OWNED_SECRET = String.raw`(?:the\s+user's|all(?:\s+the)?|your|any|every|their)\s+(?:api[\s_-]?keys?|passwords?|credentials|secrets|access\s+tokens?|tokens)\b`;
const SENSITIVE_NOUN = String.raw`(?:${OWNED_SECRET}|(?:private|ssh)\s+keys?\b|session\s+(?:tokens?|cookies?)\b|environment\s+variables\b|(?:conversation|chat)\s+history\b|system\s+prompt\b)`;

export const PHRASE_RULES: readonly PhraseRule[] = [
  // ---- override: the model is told to drop what it was told before ----
  {
    id: 'override.ignore_previous.en',
    code: 'instruction_override',
    pattern: String.raw`\b(?:ignore|disregard|forget|override)\s+(?:(?:all|any)\s+(?:of\s+)?(?:the\s+|your\s+)?(?:${PRIOR}\s+)?|(?:the\s+|your\s+)?${PRIOR}\s+)${ORDERS}`,
  },
  {
    id: 'override.new_instructions.en',
    code: 'instruction_override',
    pattern: String.raw`\b(?:your\s+(?:new|real|true|actual)\s+(?:instructions|task|goal|role|purpose)\b|(?:new|updated|real|secret|hidden)\s+instructions?\s*:|you\s+are\s+now\s+(?:a|an|the|in|my)\b)`,
  },
  {
    id: 'override.ignore_previous.de',
    code: 'instruction_override',
    pattern: String.raw`\b(?:ignoriere|ignorieren\s+sie|vergiss|vergessen\s+sie|missachte)\s+(?:alle\s+)?(?:die\s+|deine\s+)?(?:vorherigen|bisherigen|obigen|vorigen|früheren|vorangegangenen|ursprünglichen)\s+(?:anweisungen|instruktionen|befehle|regeln|vorgaben)`,
  },
  {
    id: 'override.ignore_previous.fr',
    code: 'instruction_override',
    pattern: String.raw`\b(?:ignore[rz]?|oublie[rz]?)\s+(?:toutes\s+)?(?:les\s+|tes\s+|vos\s+)?(?:(?:instructions|consignes|règles)\s+(?:précédentes|antérieures|ci-dessus)|(?:précédentes|anciennes)\s+(?:instructions|consignes))`,
  },
  {
    id: 'override.ignore_previous.es',
    code: 'instruction_override',
    pattern: String.raw`\b(?:ignora|ignore|ignorad|olvida|olvide)\s+(?:todas\s+)?(?:las\s+|tus\s+)?(?:instrucciones|indicaciones|reglas)\s+(?:anteriores|previas)`,
  },
  {
    id: 'override.ignore_previous.it',
    code: 'instruction_override',
    pattern: String.raw`\b(?:ignora|ignorate|dimentica)\s+(?:tutte\s+)?(?:le\s+)?(?:istruzioni|indicazioni|regole)\s+(?:precedenti|sopra)`,
  },
  {
    id: 'override.ignore_previous.pt',
    code: 'instruction_override',
    pattern: String.raw`\b(?:ignore|ignora|esqueça|esqueca)\s+(?:todas\s+)?(?:as\s+)?(?:instruções|instrucoes|regras)\s+(?:anteriores|prévias|previas)`,
  },
  {
    id: 'override.ignore_previous.nl',
    code: 'instruction_override',
    pattern: String.raw`\b(?:negeer|vergeet)\s+(?:alle\s+)?(?:de\s+)?(?:vorige|eerdere|voorgaande|bovenstaande)\s+(?:instructies|regels|opdrachten)`,
  },
  {
    id: 'override.ignore_previous.ru',
    code: 'instruction_override',
    pattern: String.raw`(?:игнорируй|игнорируйте|забудь|забудьте)\s+(?:все\s+)?(?:предыдущие|прежние|вышеуказанные)\s+(?:инструкции|указания|правила)`,
  },
  {
    id: 'override.ignore_previous.zh',
    code: 'instruction_override',
    pattern: String.raw`(?:忽略|无视|忽视|忘记|忘掉)(?:所有|全部)?(?:之前|以上|先前|上面|前面)?的?(?:所有)?(?:指令|指示|规则|提示)`,
  },
  {
    id: 'override.ignore_previous.ja',
    code: 'instruction_override',
    pattern: String.raw`(?:以前|前|上記|これまで)の(?:すべての|全ての)?(?:指示|命令|ルール)を(?:無視|忘れ)`,
  },

  // ---- concealment: the model is told to keep something from the user ----
  {
    id: 'concealment.do_not_tell.en',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:do\s+not|don't|never|must\s+not|should\s+not|shouldn't)\s+(?:tell|inform|mention|reveal|notify|alert|disclose|report)\s+(?:this\s+|it\s+|anything\s+|that\s+)?(?:about\s+(?:this|it)\s+)?${TO_USER}`,
  },
  {
    id: 'concealment.without_telling.en',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:without\s+(?:telling|informing|notifying|alerting)\s+(?:the\s+)?(?:user|human)|without\s+the\s+user(?:'s)?\s+(?:knowledge|knowing|noticing)|the\s+user\s+(?:must|should)\s+(?:not|never)\s+(?:know|see|notice|find\s+out|be\s+told)|(?:hide|conceal|keep)\s+(?:this|it|that)\s+(?:hidden\s+|secret\s+)?from\s+the\s+(?:user|human))\b`,
  },
  {
    id: 'concealment.do_not_mention.en',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:do\s+not|don't|never)\s+mention\s+(?:this|that|these|it|anything)\b|\bsilently\s+(?:send|upload|forward|copy|read|include|exfiltrate|transmit|post)\b`,
  },
  {
    id: 'concealment.do_not_tell.de',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:(?:sag|sage|sagen\s+sie|erzähl|erzähle|verrate)\s+(?:dem|der)\s+(?:benutzer|nutzer|anwender)(?:in)?\s+nichts|ohne\s+(?:den|die)\s+(?:benutzer|nutzer|anwender)(?:in)?\s+zu\s+(?:informieren|benachrichtigen|fragen)|(?:nicht|niemals)\s+(?:dem|der)\s+(?:benutzer|nutzer)(?:in)?\s+(?:mitteilen|sagen|zeigen|erzählen))`,
  },
  {
    id: 'concealment.do_not_tell.fr',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:ne\s+(?:le\s+|lui\s+|rien\s+)?(?:dis|dites|mentionne[zr]?|révèle[zr]?|signale[zr]?)\s+(?:pas\s+|rien\s+|jamais\s+)?(?:à\s+)?l['’]utilisat(?:eur|rice)|sans\s+(?:en\s+)?(?:informer|prévenir|avertir)\s+l['’]utilisat(?:eur|rice))`,
  },
  {
    id: 'concealment.do_not_tell.es',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:no\s+(?:le\s+)?(?:digas|diga|menciones|informes|reveles)\s+(?:nada\s+)?(?:al|a\s+la)\s+usuari[oa]|sin\s+(?:informar|avisar|decirle)\s+(?:al|a\s+la)\s+usuari[oa])`,
  },
  {
    id: 'concealment.do_not_tell.it',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:non\s+(?:dire|dirlo|informare|menzionare)\s+(?:nulla\s+|niente\s+)?all['’]utente|senza\s+(?:informare|avvisare)\s+l['’]utente)`,
  },
  {
    id: 'concealment.do_not_tell.pt',
    code: 'instruction_concealment',
    pattern: String.raw`\b(?:não\s+(?:diga|conte|informe|mencione)\s+(?:nada\s+)?ao\s+usuário|sem\s+(?:informar|avisar)\s+o\s+usuário)`,
  },
  {
    id: 'concealment.do_not_tell.ru',
    code: 'instruction_concealment',
    pattern: String.raw`не\s+(?:говори|сообщай|рассказывай|показывай)(?:те)?\s+(?:об\s+этом\s+)?пользователю`,
  },
  {
    id: 'concealment.do_not_tell.zh',
    code: 'instruction_concealment',
    pattern: String.raw`(?:不要|别|切勿|不得)(?:告诉|通知|提醒|透露给|让)用户`,
  },
  {
    id: 'concealment.do_not_tell.ja',
    code: 'instruction_concealment',
    pattern: String.raw`ユーザー(?:に|には)(?:伝えない|言わない|知らせない|教えない|伝えないで|言わないで)`,
  },

  // ---- sensitive access: harvesting secrets (paths are a separate check, see SENSITIVE_PATH) ----
  {
    id: 'sensitive.harvest.en',
    code: 'instruction_sensitive_access',
    pattern: String.raw`\b(?:read|send|include|share|attach|upload|output|print|reveal|leak|forward|exfiltrate|collect|extract|dump)\s+(?:[\w'-]+\s+){0,4}?${SENSITIVE_NOUN}`,
  },
  {
    id: 'sensitive.system_prompt.en',
    code: 'instruction_sensitive_access',
    pattern: String.raw`\b(?:reveal|print|include|repeat|output|send|share|leak)\s+(?:[\w'-]+\s+){0,3}?(?:your\s+(?:system\s+prompt|instructions|initial\s+prompt)|the\s+system\s+prompt)\b`,
  },

  // ---- exfiltration: data sent somewhere ----
  {
    id: 'exfiltration.send_contents.en',
    code: 'instruction_exfiltration',
    pattern: String.raw`\b(?:send|post|upload|forward|transmit|exfiltrate|leak|copy|submit|beacon)\s+(?:all\s+|the\s+|its\s+|their\s+|this\s+|any\s+|every\s+)?(?:full\s+|entire\s+|complete\s+|raw\s+)?(?:contents?|data|conversation|history|secrets?|credentials|keys|tokens|environment)\b[^\n]{0,60}?\bto\b`,
  },
  {
    id: 'exfiltration.pass_contents.en',
    code: 'instruction_exfiltration',
    pattern: String.raw`\b(?:pass|put|include|add|insert|embed|append|attach|send)\s+(?:its|their|the\s+file's|the\s+files')\s+contents?\s+(?:as|in|into|inside|within|via)\b`,
  },
  {
    id: 'exfiltration.send_contents.de',
    code: 'instruction_exfiltration',
    pattern: String.raw`\b(?:sende|schicke|übermittle|lade)\s+(?:den\s+inhalt|die\s+daten|alle\s+daten|die\s+dateien?|die\s+zugangsdaten|die\s+schlüssel)\b[^\n]{0,60}?\b(?:an|zu|nach|hoch)\b`,
  },
  {
    id: 'exfiltration.send_contents.fr',
    code: 'instruction_exfiltration',
    pattern: String.raw`\b(?:envoie|envoyez|transmets|transmettez)\s+(?:le\s+contenu|les\s+données|toutes\s+les\s+données|les\s+fichiers|les\s+identifiants)[^\n]{0,60}?\s(?:à|au|vers)\s`,
  },
  {
    id: 'exfiltration.send_contents.es',
    code: 'instruction_exfiltration',
    pattern: String.raw`\b(?:envía|envia|manda|sube)\s+(?:el\s+contenido|los\s+datos|todos\s+los\s+datos|los\s+archivos|las\s+credenciales)[^\n]{0,60}?\s(?:a|al)\s`,
  },

  // ---- markup addressed to models ----
  {
    id: 'markup.tag',
    code: 'instruction_markup',
    pattern: String.raw`<\s*/?\s*(?:important|system|instructions?|hidden|override|critical|sys|system[_-]prompt|assistant[_-]instructions)\s*>`,
  },
  {
    id: 'markup.chat_template',
    code: 'instruction_markup',
    pattern: String.raw`<\|(?:im_start|im_end|system|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>|\[/?inst\]|<<\s*/?sys\s*>>|(?:^|\n)\s*#{2,}\s*(?:system|instructions?)\s*:`,
  },

  // ---- hijacking other tools or the conversation ----
  {
    id: 'hijack.other_tools.en',
    code: 'instruction_tool_hijack',
    pattern: String.raw`\b(?:do\s+not|don't|never)\s+(?:use|call|invoke)\s+(?:the\s+|any\s+)?other\s+(?:tools?|servers?|functions?)\b|\bthis\s+(?:tool|function)\s+(?:replaces|overrides|supersedes|takes\s+precedence\s+over)\b`,
  },
  {
    id: 'hijack.redirect.en',
    code: 'instruction_tool_hijack',
    pattern: String.raw`\b(?:all|every|any)\s+(?:e-?mails?|messages?|requests?|calls?|payments?|transfers?)\s+(?:must|should|shall|have\s+to)\s+(?:also\s+|always\s+)?(?:be\s+)?(?:sent|forwarded|redirected|routed|copied|cc'?d|bcc'?d)\s+to\b`,
  },
  {
    id: 'hijack.instead.en',
    code: 'instruction_tool_hijack',
    pattern: String.raw`\b(?:when|whenever|if)\s+(?:the\s+user|you|anyone)\s+(?:asks?|wants?|tries?|requests?)\b[^\n]{0,60}?\b(?:always\s+)?(?:use|call|invoke)\s+this\s+tool\s+instead\b`,
  },
];
