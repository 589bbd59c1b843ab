// Prompt-injection rules of the category `exfiltration`: indirect injection in text the model reads
// (notes to an AI reader, keeping things from the user) and sending data out. Pattern syntax: injection-rules.ts.
import type { InjectionRule } from './injection-rule-types.js';

export const EXFILTRATION_RULES: readonly InjectionRule[] = [
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
];
