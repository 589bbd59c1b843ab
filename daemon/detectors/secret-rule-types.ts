// The shape of a secret rule and its allow-lists: the rule files (ours, gitleaks', the vendors') are data of this shape;
// local() gives our own rules their defaults.
export type AllowTarget = 'secret' | 'match' | 'line';

/** A match is dropped when one regex matches its target, or its secret contains one stop-word (lower-cased). */
export interface SecretAllowList {
  readonly regexes?: readonly string[];
  readonly stopwords?: readonly string[];
  /** What the regexes test: the secret (default), the whole match, or the line holding the match. */
  readonly target?: AllowTarget;
}

export interface SecretRule {
  readonly id: string;
  readonly entity: string;
  /** RE2 syntax; case-insensitivity is written inline, `(?i)`, as gitleaks writes it. */
  readonly regex: string;
  /** Lower-case; the rule runs only near an occurrence of one of them in the lower-cased text. */
  readonly keywords: readonly string[];
  /** The secret's Shannon entropy (bits per character) must exceed this. */
  readonly entropy?: number;
  /** Capture group holding the secret: default the first that took part in the match; 0 = the whole match. */
  readonly secretGroup?: number;
  /** gitleaks' rule for generic-*: an entropy-checked secret must also contain a digit. */
  readonly requireDigit?: boolean;
  /** The secret must look generated or chosen, not like a word or an identifier: see looksLikeSecret() in secret-randomness.ts. */
  readonly random?: boolean;
  readonly allow?: readonly SecretAllowList[];
  /**
   * Longest match worth splitting into groups: a longer one is dropped before its groups are taken
   * (RE2 takes them with its NFA, ~20 ms per KB of match; a flood of `token=token=...` is one match).
   */
  readonly maxMatch?: number;
  /**
   * A JavaScript regex that every match of the rule contains, tested once per text before the rule's
   * RE2 search: for rules whose keywords are a letter or two ("m", "ac", "s.") and so occur in almost
   * every text. It must hold for every text the rule can match, in any case the views produce.
   */
  readonly mustContain?: RegExp;
  /** Characters searched before and after a keyword hit; default [128, 512]. */
  readonly span?: readonly [number, number];
  /** A generic finding yields to a vendor finding that overlaps it. */
  readonly generic?: boolean;
  readonly score: number;
  readonly source: 'gitleaks' | 'local';
}

/** One of our rules, with our default score. */
export function local(id: string, entity: string, regex: string, keywords: string[], opt: Partial<SecretRule> = {}): SecretRule {
  return { id, entity, regex, keywords, score: 0.9, source: 'local', ...opt };
}
