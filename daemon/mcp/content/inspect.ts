// Runs the content detectors over every string inside a JSON value (a call's arguments, a result):
// each finding carries the JSON path of its string and what its policy makes of it. Pure and
// synchronous, like verify's scan: a detector that throws, runs past the budget, or whose stored
// configuration no longer parses ends the inspection (fail closed), naming the error class.
import type { TextOrigin } from '../../detectors/types.js';
import { injectionLevel, type InjectionConfig } from '../../detectors/injection-config.js';
import { DETECTORS } from '../../detectors/index.js';
import type { Finding } from '../../detectors/types.js';
import { Redactor } from '../../detectors/redact.js';
import type { ContentRule } from './effective.js';
import { crossing, joinsOf } from './sibling-strings.js';
import { knownClean, rememberable, rememberClean } from './clean-strings.js';
import { childPath, KEY_SUFFIX, parentOf, shownPath, siblings, type Skip, stringsIn, walk } from './json-strings.js';

export type ContentEffect = 'BLOCK' | 'REDACT' | 'FLAG';

/** What the trace, the refusal and the approval show: types, paths and scores, never the values. */
export interface ContentFinding {
  readonly detector: string;
  readonly entity: string;
  readonly path: string;
  readonly score: number;
  readonly rule?: string;
  readonly effect: ContentEffect;
}

interface Located {
  readonly finding: ContentFinding;
  readonly span: Finding;
  /** The string's full path (the finding shows shownPath of it). */
  readonly path: string;
}

export type InspectionErrorClass =
  | 'detector_error'
  | 'detector_timeout'
  | 'policy_config_invalid'
  | 'inspection_budget_exceeded'
  /** The worker thread inspecting a large message died (out of memory) or could not start (inspect-pool.ts). */
  | 'inspection_worker_failed';

/** Plain data (it crosses from an inspection worker as it is); `binaryItems`: members a skip left out as binary. */
export type Inspection =
  | {
      readonly ok: true;
      readonly findings: readonly ContentFinding[];
      readonly located: readonly Located[];
      readonly binaryItems: number;
    }
  | {
      readonly ok: false;
      readonly errorClass: InspectionErrorClass;
      readonly detector: string;
      readonly findings: readonly ContentFinding[];
      readonly binaryItems: number;
    };

/** Models whose finding alone only flags here: the operator's ONNX model was not calibrated on tool results. */
const UNCALIBRATED: ReadonlySet<string> = new Set(['model.onnx']);

/**
 * What one finding makes of its rule's action: injection below the block threshold only flags, and
 * so does injection only an uncalibrated model saw. The shipped classifier's thresholds are chosen
 * per benign kind of its development split, tool outputs (JSON, logs, e-mails, statements) among
 * them (docs/verify.md, the model card), so its BLOCK withholds a result on its own.
 */
function effectOf(rule: ContentRule, f: Finding): ContentEffect | null {
  if (rule.detector !== 'injection') return rule.action;
  const level = injectionLevel(f.score, rule.config as InjectionConfig);
  if (level === 'low') return null;
  const modelOnly = (f.rule ?? '').split(',').every((name) => UNCALIBRATED.has(name));
  return level === 'high' && !modelOnly ? (rule.action as ContentEffect) : 'FLAG';
}

/**
 * The work of inspect(), one string at a time: it yields after each detector run, so a caller may
 * give the event loop a turn between runs (inspectInTurns). `totalMs` bounds the time all runs of
 * one message take together (not counting the turns given away): past it, the inspection fails
 * closed (`inspection_budget_exceeded`), however short each string is.
 */
function* inspecting(
  value: unknown,
  rules: readonly ContentRule[],
  origin: TextOrigin,
  budgetMs: number,
  totalMs: number,
  skip?: Skip,
): Generator<void, Inspection> {
  const findings: ContentFinding[] = [];
  let spent = 0;
  const located: Located[] = [];
  if (rules.length === 0) return { ok: true, findings, located, binaryItems: 0 };
  const { strings, binaryItems } = walk(value, skip);
  for (const rule of rules) {
    if (rule.config === undefined)
      return { ok: false, errorClass: 'policy_config_invalid', detector: rule.detector, findings, binaryItems };
    const detector = DETECTORS[rule.detector]!;
    const run = (text: string): Finding[] | 'detector_error' | 'detector_timeout' | 'inspection_budget_exceeded' => {
      const started = performance.now();
      let found: Finding[];
      try {
        found = detector.detect(text, rule.config, { origin });
      } catch {
        return 'detector_error';
      }
      const took = performance.now() - started;
      spent += took;
      if (took > budgetMs) return 'detector_timeout';
      return spent > totalMs ? 'inspection_budget_exceeded' : found;
    };
    const add = (path: string, span: Finding): void => {
      const wanted = effectOf(rule, span);
      if (wanted === null) return;
      // A key cannot be masked (its value would lose its name): what would be masked is blocked.
      const effect = wanted === 'REDACT' && path.endsWith(KEY_SUFFIX) ? 'BLOCK' : wanted;
      const finding: ContentFinding = {
        detector: span.detector,
        entity: span.entity,
        path: shownPath(path), // a key may be anyone's text, a card number or a secret: never kept
        score: Math.round(span.score * 1000) / 1000,
        ...(span.rule !== undefined ? { rule: span.rule } : {}),
        effect,
      };
      findings.push(finding);
      located.push({ finding, span, path });
    };
    for (const { path, text, plainKey } of strings) {
      if (plainKey && rule.detector !== 'secrets') continue;
      if (knownClean(rule.config, origin, text)) continue;
      const found = run(text);
      if (typeof found === 'string') return { ok: false, errorClass: found, detector: rule.detector, findings, binaryItems };
      for (const span of found) add(path, span);
      if (found.length === 0 && rememberable(text)) rememberClean(rule.config, origin, text);
      yield;
    }
    if (rule.detector !== 'secrets') continue;
    // A secret split across sibling strings: findings of their join that cross a boundary.
    for (const join of siblings(strings).flatMap(joinsOf)) {
      const found = run(join.text);
      if (typeof found === 'string') return { ok: false, errorClass: found, detector: rule.detector, findings, binaryItems };
      for (const { path, span } of crossing(join, found)) add(path, { ...span, rule: `${span.rule ?? ''}(split)` });
      yield;
    }
  }
  return { ok: true, findings, located, binaryItems };
}

/** The detectors of `rules` over every string of `value` (but what `skip` leaves out); `origin` is whose words they are. */
export function inspect(
  value: unknown,
  rules: readonly ContentRule[],
  origin: TextOrigin,
  budgetMs: number,
  skip?: Skip,
  totalMs = Number.POSITIVE_INFINITY,
): Inspection {
  const steps = inspecting(value, rules, origin, budgetMs, totalMs, skip);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** How long inspectInTurns works before it lets the event loop answer others. */
const TURN_MS = 10;

/**
 * inspect(), giving the event loop a turn every TURN_MS of work: a message of many strings no longer
 * holds the daemon's thread (/healthz and other callers are answered meanwhile), and `totalMs` bounds
 * the work one message may cost.
 */
export async function inspectInTurns(
  value: unknown,
  rules: readonly ContentRule[],
  origin: TextOrigin,
  budgetMs: number,
  totalMs: number,
  skip?: Skip,
): Promise<Inspection> {
  const steps = inspecting(value, rules, origin, budgetMs, totalMs, skip);
  let turn = performance.now();
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (performance.now() - turn >= TURN_MS) {
      await new Promise<void>((resolve) => setImmediate(resolve));
      turn = performance.now();
    }
  }
}

/** The strongest effect among findings: BLOCK > REDACT > FLAG; null when there are none. */
export function strongest(findings: readonly ContentFinding[]): ContentEffect | null {
  if (findings.some((f) => f.effect === 'BLOCK')) return 'BLOCK';
  if (findings.some((f) => f.effect === 'REDACT')) return 'REDACT';
  return findings.length > 0 ? 'FLAG' : null;
}

/**
 * `value` with every REDACT finding's span replaced by its typed placeholder ([AWS_ACCESS_KEY_1]),
 * one numbering across the whole value; strings without one are kept as they are.
 */
export function redactValue(value: unknown, located: readonly Located[]): unknown {
  const byPath = new Map<string, Finding[]>();
  for (const l of located) if (l.finding.effect === 'REDACT') byPath.set(l.path, [...(byPath.get(l.path) ?? []), l.span]);
  if (byPath.size === 0) return value;
  // Paths are walked in document order (stringsIn's), so placeholders number as the text reads.
  const redactor = new Redactor();
  const masked = new Map<string, string>();
  for (const { path, text } of stringsIn(value)) {
    const spans = byPath.get(path);
    if (spans) masked.set(path, redactor.redact(text, spans).text);
  }
  // Only the containers on the way to a masked string are copied; the rest is shared.
  const onTheWay = new Set<string>();
  for (const path of masked.keys()) for (let p = path; p !== '$'; p = parentOf(p)) onTheWay.add(parentOf(p));
  const walk = (v: unknown, path: string): unknown => {
    if (typeof v === 'string') return masked.get(path) ?? v;
    if (!onTheWay.has(path)) return v;
    if (Array.isArray(v)) return v.map((x, i) => walk(x, childPath(path, i)));
    if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, childPath(path, k))]));
    return v;
  };
  return walk(value, '$');
}

/** Findings as error.data and approvals show them: what and where, no scores or rules. */
export const findingSummary = (findings: readonly ContentFinding[]) =>
  findings.map((f) => ({ detector: f.detector, entity: f.entity, path: f.path, effect: f.effect }));
