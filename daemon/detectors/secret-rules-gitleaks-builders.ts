// The builders of the gitleaks rule tables (secret-rules-gitleaks-*.ts): semi(), semiCs() and uniq()
// reproduce gitleaks' own regex generators, so that the ~100 "identifier = value" rules read as one
// line each; r(), s() and sc() make a rule with gitleaks' scores. Our rules reuse END and semi().
import type { SecretRule } from './secret-rule-types.js';

type Opt = Partial<Omit<SecretRule, 'id' | 'regex' | 'keywords' | 'source'>>;

const OP = String.raw`(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)`;
const PRE = String.raw`[\x60'"\s=]{0,5}`;
// ours: gitleaks ends a token at a quote, whitespace, ';', an escaped newline or the end of the file.
// Prompts are prose, so a token may also end at ',', ')', ']', '}', '>' or at '.', '!', '?', ':' before a space.
export const END = String.raw`(?:[\x60'"\s;,)\]}>]|[.!?:](?:\s|$)|\\[nr]|$)`;
export const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';

/** gitleaks' GenerateSemiGenericRegex, case-insensitive: `<identifier> <operator> <secret>`. */
export function semi(ids: string, secret: string): string {
  return String.raw`(?i)[\w.-]{0,50}?(?:` + ids + String.raw`)(?:[ \t\w.-]{0,20})[\s'"]{0,3}` + OP + PRE + '(' + secret + ')' + END;
}
/** The same with a case-sensitive secret. */
function semiCs(ids: string, secret: string): string {
  return (
    String.raw`[\w.-]{0,50}?(?i:[\w.-]{0,50}?(?:` + ids + String.raw`)(?:[ \t\w.-]{0,20})[\s'"]{0,3})` + OP + PRE + '(' + secret + ')' + END
  );
}
/** gitleaks' GenerateUniqueTokenRegex: a token with a vendor prefix, standing alone. */
export function uniq(secret: string, ci = false): string {
  return (ci ? '(?i)' : '') + String.raw`\b(` + secret + ')' + END;
}

function entityOf(id: string): string {
  return id.toUpperCase().replace(/-/g, '_');
}
export function r(id: string, regex: string, keywords: string[], opt: Opt = {}): SecretRule {
  return { id, entity: entityOf(id), regex, keywords, score: 0.95, source: 'gitleaks', ...opt };
}
/** An identifier-and-value rule: the value alone is not distinctive, so it scores lower. */
export function s(id: string, ids: string, secret: string, keywords: string[], opt: Opt = {}): SecretRule {
  return r(id, semi(ids, secret), keywords, { score: 0.8, ...opt });
}
export function sc(id: string, ids: string, secret: string, keywords: string[], opt: Opt = {}): SecretRule {
  return r(id, semiCs(ids, secret), keywords, { score: 0.8, ...opt });
}
