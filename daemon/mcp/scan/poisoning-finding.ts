// What a tool-poisoning finding is (poisoning.ts), the bounds of one tool's scan, and how a
// finding shows what it saw: clipped, control characters blanked.

export const POISONING_CODES = [
  'instruction_override',
  'instruction_concealment',
  'instruction_sensitive_access',
  'instruction_exfiltration',
  'instruction_markup',
  'instruction_tool_hijack',
  'unicode_tag_characters',
  'zero_width_characters',
  'bidi_control_characters',
  'variation_selector_run',
  'exfiltration_url',
  'tool_shadowing',
  'confusable_name',
  'description_changed',
  'invalid_input_schema',
  'scan_truncated',
] as const;
export type PoisoningCode = (typeof POISONING_CODES)[number];

export interface PoisoningFinding {
  readonly code: PoisoningCode;
  readonly detail: string;
  readonly where: string;
}

/** Bounds of one tool's scan; past them the rest is unread and the tool is a suspect. */
export const LIMITS = {
  maxDepth: 64,
  maxNodes: 20_000,
  maxTextChars: 1_000_000,
  maxCompiledSubschemas: 1_000,
  maxFindings: 100,
  detailChars: 160,
} as const;

export const clip = (s: string): string => {
  const shown = s.replace(/[\u0000-\u001f\u007f]/gu, ' ');
  return shown.length > LIMITS.detailChars ? `${shown.slice(0, LIMITS.detailChars)}…` : shown;
};
export const codePoint = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
