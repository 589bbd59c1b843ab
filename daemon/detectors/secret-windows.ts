// Where the secret rules look: every rule keyword found in one pass over the lower-cased text, and
// for each rule the merged windows around its keywords' positions (a rule's match lies within its
// span of a keyword), their edges snapped to whitespace. secrets.ts runs RE2 only inside them.
import { SECRET_RULES } from './secret-rules.js';
import { WordAutomaton } from './word-automaton.js';

const MERGE_GAP = 256;
const SNAP = 1024;
const HIT_CAP = 256;

const KEYWORDS = [...new Set(SECRET_RULES.flatMap((r) => r.keywords))];
const AUTOMATON = new WordAutomaton(KEYWORDS);
const RULE_KEYWORDS = SECRET_RULES.map((r) => r.keywords.map((k) => KEYWORDS.indexOf(k)));
/** For each keyword, the rules (by index) that name it. */
const KEYWORD_RULES: readonly number[][] = KEYWORDS.map((_, k) => RULE_KEYWORDS.flatMap((ks, rule) => (ks.includes(k) ? [rule] : [])));

const NO_POSITIONS: number[] = [];

/**
 * Keyword positions in the lower-cased text, all keywords in one pass; null: more than HIT_CAP hits.
 * Only keywords that occur get a list (most texts hold none of most keywords), so a short text
 * costs one pass and no allocation per rule.
 */
export class KeywordHits {
  private readonly hits = new Map<number, number[] | null>();
  constructor(lower: string) {
    AUTOMATON.scan(lower, (k, end) => {
      const list = this.hits.get(k);
      if (list === null) return;
      if (list === undefined) this.hits.set(k, [end - KEYWORDS[k]!.length]);
      else if (list.length === HIT_CAP) this.hits.set(k, null);
      else list.push(end - KEYWORDS[k]!.length);
    });
  }

  /**
   * The rules (by index, ascending) one of whose keywords occurs: every rule has keywords, so no
   * other rule can match and a text without any keyword costs no per-rule work at all.
   */
  rulesHit(): number[] {
    const rules = new Set<number>();
    for (const k of this.hits.keys()) for (const rule of KEYWORD_RULES[k]!) rules.add(rule);
    return [...rules].sort((a, b) => a - b);
  }

  /** Each keyword that occurs, with its positions (null: more than HIT_CAP of them). */
  occurrences(): Array<[keyword: string, positions: readonly number[] | null]> {
    return [...this.hits].map(([k, positions]) => [KEYWORDS[k]!, positions]);
  }

  /** Sorted positions of the rule's keywords; null means "everywhere" (scan the whole text). */
  positions(rule: number): number[] | null {
    if (this.hits.size === 0) return NO_POSITIONS;
    let all: number[] | null = null;
    for (const k of RULE_KEYWORDS[rule]!) {
      const hits = this.hits.get(k);
      if (hits === undefined) continue;
      if (hits === null) return null;
      all = all === null ? [...hits] : all.concat(hits);
    }
    return all === null ? NO_POSITIONS : all.sort((a, b) => a - b);
  }
}

const SPACE = /\s/;

// A window edge sits on whitespace, so `\b`, `^` and `$` at the edge mean what they mean in the text.
function snapBack(text: string, at: number): number {
  for (let i = at, stop = Math.max(0, at - SNAP); i > stop; i--) if (SPACE.test(text[i]!)) return i;
  return at - SNAP <= 0 ? 0 : at;
}
function snapForward(text: string, at: number): number {
  for (let i = at, stop = Math.min(text.length, at + SNAP); i < stop; i++) if (SPACE.test(text[i]!)) return i + 1;
  return at + SNAP >= text.length ? text.length : at;
}

/** Merged [from, to) ranges around keyword positions. */
export function windows(text: string, positions: readonly number[] | null, span: readonly [number, number]): Array<[number, number]> {
  if (positions === null) return [[0, text.length]];
  const out: Array<[number, number]> = [];
  for (const p of positions) {
    const from = snapBack(text, Math.max(0, p - span[0]));
    const to = snapForward(text, Math.min(text.length, p + span[1]));
    const last = out[out.length - 1];
    if (last !== undefined && from <= last[1] + MERGE_GAP) last[1] = Math.max(last[1], to);
    else out.push([from, to]);
  }
  return out;
}
