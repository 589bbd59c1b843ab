// The secret rules compiled into RE2, each on first use: a finder without submatches and, for rules
// whose secret is a group, a tail pattern that splits a match already found. The rules share out
// re2-wasm's heaps; when one is exhausted every compiled rule is released and compiles again.
import type { RE2 } from 're2-wasm';
import { onRe2Exhausted, re2Heap, releaseRe2 } from './re2-heap.js';
import { DROPPED_RULES, GLOBAL_ALLOW, SECRET_RULES } from './secret-rules.js';
import type { AllowTarget, SecretAllowList, SecretRule } from './secret-rule-types.js';

export interface CompiledAllow {
  readonly target: AllowTarget;
  readonly regex: RE2 | null;
  readonly stopwords: readonly string[];
}
export interface CompiledRule {
  readonly rule: SecretRule;
  /** Finds matches, without submatches. */
  readonly re: RE2;
  /** Splits a match into its groups (null: the secret is the whole match). See secretOf. */
  readonly tail: RE2 | null;
  readonly allow: readonly CompiledAllow[];
}

// The rules share out four re2-wasm heaps of 16 MB (see keywords.ts); ~56 rules, warm and after a
// stress run over varied text, use about a third of one.
const RULES_PER_HEAP = 56;
const heapOf = (i: number): typeof RE2 => re2Heap(1 + Math.floor(i / RULES_PER_HEAP));

/** An allow-list's regexes as one alternation: one RE2 call per candidate instead of one per regex. */
function compileAllow(list: SecretAllowList, Re2: typeof RE2): CompiledAllow {
  const regexes = list.regexes ?? [];
  const regex = regexes.length === 0 ? null : new Re2(regexes.map((r) => `(?:${r})`).join('|'), 'u');
  return { target: list.target ?? 'secret', regex, stopwords: list.stopwords ?? [] };
}

/**
 * RE2 as re2-wasm runs it: a fixed 16 MB heap per instance, and a DFA per pattern whose states grow
 * with the width of counted repeats and with the text seen. Repeats wider than `width` are opened
 * to {m,} (runs longer than gitleaks' upper bound then match too). For finding matches the width is
 * 20, which keeps gitleaks' 20-character gap between a name and its "="; with the bounds as written,
 * a stress run over varied text exhausted the heap. For splitting a match already found into its
 * groups the width is 5: the same split of the same text, at a tenth of the NFA work.
 */
export function relax(source: string, width: number): string {
  return source.replace(/\{(\d+),(\d+)\}/g, (all, m: string, n: string) => (Number(n) - Number(m) > width ? `{${m},}` : all));
}

/** Does the pattern have a capturing group? (Skips escapes and character classes.) */
function capturing(source: string): boolean {
  for (let i = 0, inClass = false; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') {
      inClass = true;
      if (source[i + 1] === '^') i++;
      if (source[i + 1] === ']') i++;
    } else if (c === '(' && (source[i + 1] !== '?' || source.startsWith('(?P<', i) || source.startsWith('(?<', i))) return true;
  }
  return false;
}

// Compiling the set costs ~4 s of CPU, up to 100 ms a rule: a rule is compiled the first time one
// of its keywords occurs, or ahead of traffic by warmSecretRules() at boot.
let COMPILED: Array<CompiledRule | null | undefined> = new Array(SECRET_RULES.length);
let GLOBAL: CompiledAllow | undefined;
const DROPPED: Array<{ id: string; why: string }> = [...DROPPED_RULES];

function releaseAllow(a: CompiledAllow): void {
  if (a.regex !== null) releaseRe2(a.regex);
}

onRe2Exhausted(() => {
  for (const c of COMPILED)
    if (c !== null && c !== undefined) {
      releaseRe2(c.re);
      if (c.tail !== null) releaseRe2(c.tail);
      c.allow.forEach(releaseAllow);
    }
  if (GLOBAL !== undefined) releaseAllow(GLOBAL);
  COMPILED = new Array(SECRET_RULES.length);
  GLOBAL = undefined;
});

export function compiledRule(i: number): CompiledRule | null {
  let c = COMPILED[i];
  if (c !== undefined) return c;
  const rule = SECRET_RULES[i]!;
  try {
    const Re2 = heapOf(i);
    const groups = rule.secretGroup !== 0 && capturing(rule.regex);
    c = {
      rule,
      re: new Re2(relax(rule.regex, 20), 'u'),
      tail: groups ? new Re2(`^(?:${relax(rule.regex, 5)})$`, 'u') : null,
      allow: (rule.allow ?? []).map((a) => compileAllow(a, Re2)),
    };
  } catch (err) {
    if (!(err instanceof SyntaxError)) throw err;
    c = null;
    DROPPED.push({ id: rule.id, why: `RE2 refused it: ${err.message}` });
  }
  COMPILED[i] = c;
  return c;
}
export interface SecretRulesReport {
  readonly compiled: number;
  readonly dropped: ReadonlyArray<{ id: string; why: string }>;
}

export function rulesReport(): SecretRulesReport {
  return { compiled: COMPILED.filter((c) => c !== undefined && c !== null).length, dropped: [...DROPPED] };
}

/** gitleaks' global allow-list, compiled on first use. */
export function globalAllow(): CompiledAllow {
  GLOBAL ??= compileAllow(GLOBAL_ALLOW, heapOf(0));
  return GLOBAL;
}
