// The rules' score of a text: the hits of injection-match.ts over the text's normalised view, its
// un-leeted view and, down to MAX_DEPTH, the texts it hides (injection-hidden.ts), plus the signals of
// hiding itself; the strongest hit per rule, combined as independent evidence.
import { SIGNAL_WEIGHTS, type SignalName } from './injection-rules.js';
import { hiddenTexts } from './injection-hidden.js';
import { normalise, unleet } from './injection-normalise.js';
import { matchView, type Hit } from './injection-match.js';

const MAX_DEPTH = 2;

function signal(name: SignalName, disabled: ReadonlySet<string>, start: number, end: number): Hit[] {
  return disabled.has(name) ? [] : [{ name, weight: SIGNAL_WEIGHTS[name], start, end }];
}

/** Every hit in a text: its rules, its leetspeak, its hiding signals and, down to MAX_DEPTH, what it hides. */
function analyse(text: string, disabled: ReadonlySet<string>, depth: number, span: [number, number] | null): Hit[] {
  const { view, hidden } = normalise(text);
  const whole: [number, number] = span ?? [0, text.length];
  const hits = matchView(view, view.text, disabled, new Set(), span);
  const leet = unleet(view.text);
  if (leet !== null) {
    const more = matchView(view, leet, disabled, new Set(hits.map((h) => h.name)), span);
    if (more.length > 0) hits.push(...more, ...signal('obfuscation.leetspeak', disabled, whole[0], whole[1]));
  }
  if (hidden.zeroWidth > 0) hits.push(...signal('obfuscation.zero_width', disabled, whole[0], whole[1]));
  if (hidden.bidi > 0) hits.push(...signal('obfuscation.bidi_control', disabled, whole[0], whole[1]));
  if (hidden.mixedWords > 0) hits.push(...signal('obfuscation.confusables', disabled, whole[0], whole[1]));
  if (hidden.tags.length >= 12 || hidden.tags.includes(' ')) hits.push(...signal('obfuscation.unicode_tags', disabled, whole[0], whole[1]));
  if (hidden.selectors.length >= 8) hits.push(...signal('obfuscation.variation_selectors', disabled, whole[0], whole[1]));
  if (depth < MAX_DEPTH) {
    for (const h of hiddenTexts(text, hidden)) {
      const at = span ?? h.span;
      const inner = analyse(h.text, disabled, depth + 1, at);
      if (inner.length > 0) hits.push(...inner, ...signal('obfuscation.encoded_instructions', disabled, at[0], at[1]));
    }
  }
  return hits;
}

/** The strongest hit per rule, strongest first. */
export function strongest(hits: readonly Hit[]): Hit[] {
  const best = new Map<string, Hit>();
  for (const h of hits) if ((best.get(h.name)?.weight ?? -1) < h.weight) best.set(h.name, h);
  return [...best.values()].sort((a, b) => b.weight - a.weight || a.name.localeCompare(b.name));
}

export interface InjectionScore {
  readonly score: number;
  readonly rules: ReadonlyArray<{ name: string; weight: number }>;
  readonly start: number;
  readonly end: number;
}

export function scoreInjection(text: string, disabledRules: readonly string[] = []): InjectionScore {
  const hits = strongest(analyse(text, new Set(disabledRules), 0, null));
  const score = 1 - hits.reduce((p, h) => p * (1 - h.weight), 1);
  return {
    score: Math.round(score * 1000) / 1000,
    rules: hits.map((h) => ({ name: h.name, weight: Math.round(h.weight * 1000) / 1000 })),
    start: Math.min(...hits.map((h) => h.start), text.length),
    end: Math.max(...hits.map((h) => h.end), 0),
  };
}

/** Spans matched by disabled rules: text the policy accepts, hidden from the classifier too. */
export function disabledSpans(text: string, disabled: readonly string[]): Array<[number, number]> {
  const names = new Set(disabled);
  return analyse(text, new Set(), 0, null)
    .filter((h) => names.has(h.name))
    .map((h) => [h.start, h.end]);
}
