// Labelled detector corpora (one JSON object a line) and a precision/recall scorer shared by the
// pii, secrets and injection corpus tests. A case lists what must be found (`expect`, [] for a
// negative); a finding that matches no expectation is a false positive.
import { readFileSync } from 'node:fs';
import type { Finding } from '../../../daemon/detectors/types.js';

export interface Expectation {
  readonly entity: string;
  /** The exact text that must be covered; without it any finding of the entity satisfies the expectation. */
  readonly value?: string;
  /** Defaults to the case's detector. */
  readonly detector?: string;
}

export interface Case {
  readonly id: string;
  readonly text: string;
  readonly lang?: string;
  readonly expect: readonly Expectation[];
  /** Defaults to the corpus file's name without .jsonl (pii.jsonl -> 'pii'). */
  readonly detector?: string;
}

export interface Tally {
  tp: number;
  fp: number;
  fn: number;
  precision: number;
  recall: number;
}

export interface Miss {
  readonly id: string;
  readonly kind: 'fp' | 'fn';
  readonly entity: string;
  readonly value: string;
}

export interface Score {
  readonly overall: Tally;
  readonly entities: Record<string, Tally>;
  readonly detectors: Record<string, Tally>;
  /** Every false positive and false negative, for the test's diagnostics. */
  readonly misses: readonly Miss[];
}

/** Reads a .jsonl corpus; throws naming the line of any malformed case or duplicate id. */
export function loadCorpus(file: string): Case[] {
  const detector = file.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
  const seen = new Set<string>();
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => {
      if (line.trim() === '') return [];
      const c = JSON.parse(line) as Case;
      if (typeof c.id !== 'string' || typeof c.text !== 'string' || !Array.isArray(c.expect)) {
        throw new Error(`${file}:${i + 1}: a case needs id, text and expect`);
      }
      if (seen.has(c.id)) throw new Error(`${file}:${i + 1}: duplicate id ${c.id}`);
      seen.add(c.id);
      for (const e of c.expect) {
        if (e.value !== undefined && !c.text.includes(e.value)) throw new Error(`${file}:${i + 1}: ${e.entity} value not in text`);
      }
      return [{ detector, ...c }];
    });
}

function tally(): Tally {
  return { tp: 0, fp: 0, fn: 0, precision: 1, recall: 1 };
}

function finish(t: Tally): void {
  t.precision = t.tp + t.fp === 0 ? 1 : t.tp / (t.tp + t.fp);
  t.recall = t.tp + t.fn === 0 ? 1 : t.tp / (t.tp + t.fn);
}

/** Does the finding cover one occurrence of the expected value (or, without a value, just share its entity)? */
function covers(text: string, f: Finding, e: Expectation): boolean {
  if (f.entity !== e.entity) return false;
  if (e.value === undefined) return true;
  for (let at = text.indexOf(e.value); at >= 0; at = text.indexOf(e.value, at + 1)) {
    if (f.start <= at && f.end >= at + e.value.length) return true;
  }
  return false;
}

/**
 * Runs `detect` over every case. An expectation is a true positive when at least one finding covers
 * it (a value repeated in the text may be found several times) and a false negative otherwise; a
 * finding that covers no expectation is a false positive. Precision with nothing claimed, and recall
 * with nothing expected, count as 1.
 */
export function score(cases: readonly Case[], detect: (text: string) => readonly Finding[]): Score {
  const overall = tally();
  const entities: Record<string, Tally> = {};
  const detectors: Record<string, Tally> = {};
  const misses: Miss[] = [];
  const bump = (entity: string, detector: string, key: 'tp' | 'fp' | 'fn'): void => {
    overall[key]++;
    (entities[entity] ??= tally())[key]++;
    (detectors[detector] ??= tally())[key]++;
  };
  for (const c of cases) {
    const findings = detect(c.text);
    const used = new Set<Finding>();
    for (const e of c.expect) {
      const hits = findings.filter((f) => covers(c.text, f, e));
      for (const h of hits) used.add(h);
      const detector = e.detector ?? hits[0]?.detector ?? c.detector ?? 'unknown';
      if (hits.length > 0) bump(e.entity, detector, 'tp');
      else {
        bump(e.entity, detector, 'fn');
        misses.push({ id: c.id, kind: 'fn', entity: e.entity, value: e.value ?? '' });
      }
    }
    for (const f of findings) {
      if (used.has(f)) continue;
      bump(f.entity, f.detector, 'fp');
      misses.push({ id: c.id, kind: 'fp', entity: f.entity, value: c.text.slice(f.start, f.end) });
    }
  }
  for (const t of [overall, ...Object.values(entities), ...Object.values(detectors)]) finish(t);
  return { overall, entities, detectors, misses };
}

/** One line per entity and detector, for a test's output. */
export function formatScore(s: Score): string {
  const row = (name: string, t: Tally): string =>
    `${name.padEnd(22)} tp ${String(t.tp).padStart(4)}  fp ${String(t.fp).padStart(3)}  fn ${String(t.fn).padStart(3)}  precision ${t.precision.toFixed(3)}  recall ${t.recall.toFixed(3)}`;
  return [
    ...Object.keys(s.entities)
      .sort()
      .map((k) => row(k, s.entities[k]!)),
    ...Object.keys(s.detectors)
      .sort()
      .map((k) => row(`detector ${k}`, s.detectors[k]!)),
    row('overall', s.overall),
  ].join('\n');
}
