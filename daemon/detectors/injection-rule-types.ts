// The shape of a prompt-injection rule: the rule tables (injection-rules-*.ts, one per category) are
// data of this shape, and injection-match.ts compiles and matches them.
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
