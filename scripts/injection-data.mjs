// The injection classifier's data, shared by train-injection.mjs and eval-injection.mjs: the rows of
// ../shared/datasets/injection-train.jsonl plus scripts/injection-extra.jsonl (written for this
// project), and the development split, a fixed rule so the trainer and the evaluation agree.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const DATASET = path.resolve(ROOT, process.env.INJECTION_DATASET ?? '../shared/datasets/injection-train.jsonl');
export const EXTRA = path.join(ROOT, 'scripts/injection-extra.jsonl');
/**
 * Rows written for this project (jailbreak templates, system-prompt extraction, system manipulation,
 * fingerprinting, hard benign rows, and attacks and benign rows in de, fr, es, it, nl, pl): training
 * only, never in the development split, so adding them leaves the split and its figures comparable.
 */
export const WRITTEN = path.join(ROOT, 'scripts/injection-written.jsonl');
/**
 * Rows written for issue 26 (scripts/injection-own.mjs composes them): requests, answers, tasks, coding
 * questions and tool outputs in seven languages, and attacks inside tool outputs. Each row carries its
 * own `dev` flag (held-out wordings and sentences) and `channel` (`prompt` or `data`).
 */
export const OWN = path.join(ROOT, 'scripts/injection-own.jsonl');

/** Documented in the weights file and README: every 5th row of each stratum, ordered by SHA-256 of the text. */
export const SPLIT_RULE =
  'stratum = source name (before ":") + "/" + kind; within a stratum rows are ordered by SHA-256 of the text; ranks 0, 5, 10, ... (20%) are the development split, the rest train';

/** Attack kinds the prompt classifier is not trained on: ordinary tasks whose danger is where they appear (a document, not the prompt). */
export const NOT_TRAINED = new Set(['indirect-text', 'indirect-code']);

const readJsonl = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l));

// Benign code: the project's own sources (daemon/ and cli/, but not the detectors, whose rules and
// comments quote attacks) in chunks of 12 lines, every fourth chunk (540 rows), kept in
// scripts/injection-code.jsonl so the training data neither drifts with the tree nor depends on a
// commit being present in every clone. Taken from commit 16e94a6; the first model was trained on
// the same procedure at an earlier commit that did not land, so these rows replaced those. The
// public benign rows hold little code, and without it the model learns that code means attack.
const CODE = path.join(ROOT, 'scripts/injection-code.jsonl');
const codeRows = () => readJsonl(CODE);

export const stratum = (row) => `${row.source.split(':')[0]}/${row.kind}`;

/** All rows, each with `dev` (true for the development split) and `stratum`. */
export function loadRows() {
  if (!fs.existsSync(DATASET)) throw new Error(`dataset not found: ${DATASET} (set INJECTION_DATASET)`);
  const rows = [...readJsonl(DATASET), ...readJsonl(EXTRA), ...codeRows()];
  const groups = new Map();
  for (const row of rows) {
    if (typeof row.text !== 'string' || (row.label !== 'attack' && row.label !== 'benign'))
      throw new Error(`bad row: ${JSON.stringify(row).slice(0, 200)}`);
    // promptshield's `control` rows are ordinary tasks ("Explain how to make a cup of tea.", "List
    // five fruits.") that the source labels attack; learnt as attacks they taught the model that a
    // one-line task is one (issue 26: "a one-line request to make a cup of tea is BLOCKED").
    if (row.source.startsWith('promptshield:') && row.kind === 'control') row.label = 'benign';
    row.stratum = stratum(row);
    row.hash = crypto.createHash('sha256').update(row.text).digest('hex');
    if (!groups.has(row.stratum)) groups.set(row.stratum, []);
    groups.get(row.stratum).push(row);
  }
  for (const group of groups.values()) {
    group.sort((a, b) => (a.hash < b.hash ? -1 : a.hash > b.hash ? 1 : 0));
    group.forEach((row, i) => (row.dev = i % 5 === 0));
  }
  const written = readJsonl(WRITTEN);
  for (const row of written) {
    if (typeof row.text !== 'string' || (row.label !== 'attack' && row.label !== 'benign'))
      throw new Error(`bad row: ${JSON.stringify(row).slice(0, 200)}`);
    row.stratum = stratum(row);
    row.dev = false;
  }
  const own = readJsonl(OWN).map((row) => ({ ...row, stratum: stratum(row) }));
  return [...rows, ...written, ...own];
}
