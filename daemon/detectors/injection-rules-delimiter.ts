// Prompt-injection rules of the category `delimiter`: chat-template tokens, fake system or assistant
// turns, and fake ends of the prompt. Pattern syntax: injection-rules.ts.
import type { InjectionRule } from './injection-rule-types.js';

export const DELIMITER_RULES: readonly InjectionRule[] = [
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
];
